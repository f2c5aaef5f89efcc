package desktop

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"howett.net/plist"
)

// strictXML parses b as XML in strict mode to the end: a property list
// must be well-formed XML before any plist reader sees it.
func strictXML(t *testing.T, name string, b []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = true
	for {
		if _, err := d.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("%s is not well-formed XML: %v\n%s", name, err, b)
		}
	}
	if !bytes.Contains(b, []byte(`<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN"`)) {
		t.Errorf("%s lacks the plist DOCTYPE", name)
	}
}

// TestMacBundleAndLaunchAgent generates the .app bundle and the LaunchAgent
// into a temporary home and reads them back as property lists.
func TestMacBundleAndLaunchAgent(t *testing.T) {
	home := t.TempDir()
	tg := Target{OS: "darwin", UserHome: home, Binary: "/Applications/Soft \"phone\".app/softphone", PhoneHome: "/Users/o'neil/Library/Application Support/softphone"}
	wrote, err := Install(tg)
	if err != nil {
		t.Fatal(err)
	}
	app := filepath.Join(home, "Applications", "Softphone.app")
	if len(wrote) != 1 || wrote[0] != app {
		t.Fatalf("wrote %v", wrote)
	}
	b, err := os.ReadFile(filepath.Join(app, "Contents", "Info.plist"))
	if err != nil {
		t.Fatal(err)
	}
	strictXML(t, "Info.plist", b)
	var info map[string]any
	if format, err := plist.Unmarshal(b, &info); err != nil || format != plist.XMLFormat {
		t.Fatalf("Info.plist: %v (format %d)", err, format)
	}
	for k, want := range map[string]any{"CFBundlePackageType": "APPL", "CFBundleExecutable": "applet", "LSUIElement": true,
		"CFBundleIdentifier": "org.softphone.softphone.links"} {
		if info[k] != want {
			t.Errorf("Info.plist %s = %v, want %v", k, info[k], want)
		}
	}
	types, _ := info["CFBundleURLTypes"].([]any)
	if len(types) != 1 {
		t.Fatalf("CFBundleURLTypes %v", info["CFBundleURLTypes"])
	}
	var schemes []string
	for _, s := range types[0].(map[string]any)["CFBundleURLSchemes"].([]any) {
		schemes = append(schemes, s.(string))
	}
	if !slices.Equal(schemes, []string{"tel", "sip", "callto"}) {
		t.Errorf("schemes %v", schemes)
	}
	script, _ := os.ReadFile(filepath.Join(app, "Contents", "Resources", "dial.applescript"))
	// The shell sees the binary and home single-quoted; AppleScript sees
	// the quotes of the path escaped.
	want := `do shell script "'/Applications/Soft \"phone\".app/softphone' '--home' '/Users/o'\\''neil/Library/Application Support/softphone' dial " & quoted form of theURL & " >/dev/null 2>&1 &"`
	if !strings.Contains(string(script), "on open location theURL") || !strings.Contains(string(script), want) {
		t.Errorf("applet script:\n%s\nwant line:\n%s", script, want)
	}

	where, err := SetStartAtLogin(tg, true)
	if err != nil || where != filepath.Join(home, "Library", "LaunchAgents", "org.softphone.softphone.plist") {
		t.Fatalf("LaunchAgent %s %v", where, err)
	}
	b, _ = os.ReadFile(where)
	strictXML(t, "LaunchAgent", b)
	var agent map[string]any
	if _, err := plist.Unmarshal(b, &agent); err != nil {
		t.Fatal(err)
	}
	var args []string
	for _, a := range agent["ProgramArguments"].([]any) {
		args = append(args, a.(string))
	}
	if agent["Label"] != "org.softphone.softphone" || agent["RunAtLoad"] != true ||
		!slices.Equal(args, []string{tg.Binary, "--home", tg.PhoneHome, "--no-browser"}) {
		t.Errorf("LaunchAgent %v", agent)
	}
	if st := Check(tg); st.Links.State != StateOurs || st.Login.State != StateOurs {
		t.Fatalf("check after install %+v", st)
	}
	removed, err := Uninstall(tg)
	if err != nil || len(removed) != 2 {
		t.Fatalf("uninstall %v %v", removed, err)
	}
	for _, p := range []string{app, where} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s still there", p)
		}
	}
	if st := Check(tg); st.Links.State != StateNone || st.Login.State != StateNone {
		t.Fatalf("check after uninstall %+v", st)
	}
}

// TestMacOtherProgramsAppLeftAlone: a Softphone.app of another program in
// ~/Applications (its own bundle id) is neither replaced by Install nor
// removed by Uninstall; both removed it wholesale.
func TestMacOtherProgramsAppLeftAlone(t *testing.T) {
	home := t.TempDir()
	tg := Target{OS: "darwin", UserHome: home, Binary: "/Applications/softphone", PhoneHome: "/Users/u/softphone"}
	app := filepath.Join(home, "Applications", "Softphone.app")
	theirs := filepath.Join(app, "Contents", "MacOS", "Softphone")
	info, err := encodePlist(map[string]any{"CFBundleIdentifier": "com.example.softphone", "CFBundleExecutable": "Softphone"})
	if err != nil {
		t.Fatal(err)
	}
	for path, b := range map[string][]byte{filepath.Join(app, "Contents", "Info.plist"): info, theirs: []byte("their program")} {
		if err := writeFile(path, b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Install(tg); !errors.Is(err, ErrNotOurs) || !strings.Contains(err.Error(), "com.example.softphone") {
		t.Errorf("install over another program's bundle: %v", err)
	}
	if b, err := os.ReadFile(theirs); err != nil || string(b) != "their program" {
		t.Fatalf("install replaced the other program: %q %v", b, err)
	}
	if removed, err := Uninstall(tg); err != nil || len(removed) != 0 {
		t.Errorf("uninstall removed %v, %v", removed, err)
	}
	if b, err := os.ReadFile(theirs); err != nil || string(b) != "their program" {
		t.Fatalf("uninstall removed the other program: %q %v", b, err)
	}
	// Ours (an earlier install) is replaced and removed as before.
	if err := os.RemoveAll(app); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(tg); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(tg); err != nil {
		t.Fatalf("install over our own bundle: %v", err)
	}
	if removed, err := Uninstall(tg); err != nil || len(removed) != 1 {
		t.Fatalf("uninstall of ours: %v %v", removed, err)
	}
}
