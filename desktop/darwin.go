package desktop

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"howett.net/plist"
)

// macBundleID names the link handler bundle and the LaunchAgent.
const macBundleID = "org.softphone.softphone"

func macApp(t Target) string { return filepath.Join(t.UserHome, "Applications", "Softphone.app") }

func macAgent(t Target) string {
	return filepath.Join(t.UserHome, "Library", "LaunchAgents", macBundleID+".plist")
}

// macURLType is one entry of CFBundleURLTypes (Apple, "Information
// Property List Key Reference": the schemes the app opens).
type macURLType struct {
	CFBundleURLName    string
	CFBundleURLSchemes []string
}

// macInfo is the bundle's Info.plist. macOS hands a link to an app as an
// Apple event (kAEGetURL), not on the command line, so the executable is an
// AppleScript applet (osacompile's "applet") whose `open location` handler
// runs `softphone dial URI`.
type macInfo struct {
	CFBundleIdentifier            string
	CFBundleName                  string
	CFBundleDisplayName           string
	CFBundleExecutable            string
	CFBundlePackageType           string
	CFBundleSignature             string
	CFBundleInfoDictionaryVersion string
	CFBundleVersion               string
	CFBundleShortVersionString    string
	LSMinimumSystemVersion        string
	LSUIElement                   bool // no Dock icon: it only hands the link on
	CFBundleURLTypes              []macURLType
}

// macAgentPlist is the LaunchAgent (launchd.plist(5)): launchd runs the
// phone at login, once (no KeepAlive), without opening its page.
type macAgentPlist struct {
	Label            string
	ProgramArguments []string
	RunAtLoad        bool
	ProcessType      string
}

func macInfoOf() macInfo {
	return macInfo{CFBundleIdentifier: macBundleID + ".links", CFBundleName: "Softphone", CFBundleDisplayName: "Softphone",
		CFBundleExecutable: "applet", CFBundlePackageType: "APPL", CFBundleSignature: "aplt",
		CFBundleInfoDictionaryVersion: "6.0", CFBundleVersion: "1", CFBundleShortVersionString: "1.0",
		LSMinimumSystemVersion: "10.13", LSUIElement: true,
		CFBundleURLTypes: []macURLType{{CFBundleURLName: "Softphone call link", CFBundleURLSchemes: Schemes}}}
}

// shellQuote quotes s for /bin/sh: inside single quotes nothing is special
// but the single quote itself.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// appleString is s as an AppleScript string literal.
func appleString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// macScript is the applet's source: the link goes to `softphone dial` in
// the background so the applet quits at once.
func macScript(t Target) (string, error) {
	if strings.ContainsAny(t.Binary+t.PhoneHome, "\n\r\x00") {
		return "", fmt.Errorf("%w: %q", ErrBadPath, t.Binary)
	}
	cmd := shellQuote(t.Binary)
	for _, a := range homeArgs(t) {
		cmd += " " + shellQuote(a)
	}
	return "on open location theURL\n" +
		"\tdo shell script " + appleString(cmd+" dial ") + " & quoted form of theURL & " + appleString(" >/dev/null 2>&1 &") + "\n" +
		"end open location\n", nil
}

func encodePlist(v any) ([]byte, error) {
	b, err := plist.MarshalIndent(v, plist.XMLFormat, "\t")
	if err != nil {
		return nil, fmt.Errorf("desktop: plist: %w", err)
	}
	return b, nil
}

// macBundleFiles are the files of the bundle this package writes itself,
// by path inside the .app: Info.plist and the applet's source. On a Mac,
// osacompile adds the applet and its compiled script.
func macBundleFiles(t Target) (map[string][]byte, error) {
	script, err := macScript(t)
	if err != nil {
		return nil, err
	}
	info, err := encodePlist(macInfoOf())
	if err != nil {
		return nil, err
	}
	return map[string][]byte{"Contents/Info.plist": info, "Contents/Resources/dial.applescript": []byte(script)}, nil
}

func installMac(t Target) ([]string, error) {
	files, err := macBundleFiles(t)
	if err != nil {
		return nil, err
	}
	app := macApp(t)
	if id, theirs := macTheirs(app); theirs {
		return nil, fmt.Errorf("desktop: %s (bundle %q) %w", app, id, ErrNotOurs)
	}
	if err := os.RemoveAll(app); err != nil {
		return nil, fmt.Errorf("desktop: %w", err)
	}
	if runtime.GOOS == "darwin" {
		if err := macCompile(app, files["Contents/Resources/dial.applescript"]); err != nil {
			return nil, err
		}
	}
	for rel, b := range files {
		if err := writeFile(filepath.Join(app, filepath.FromSlash(rel)), b, 0o644); err != nil {
			return nil, err
		}
	}
	if runtime.GOOS == "darwin" {
		macRegister(app)
	}
	return []string{app}, nil
}

// macCompile makes the applet with osacompile, the system's AppleScript
// compiler (the only way to receive a link without cgo).
func macCompile(app string, script []byte) error {
	src, err := os.CreateTemp("", "softphone-*.applescript")
	if err != nil {
		return fmt.Errorf("desktop: %w", err)
	}
	defer os.Remove(src.Name())
	if _, err := src.Write(script); err != nil {
		src.Close()
		return fmt.Errorf("desktop: %w", err)
	}
	src.Close()
	if out, err := exec.Command("osacompile", "-o", app, src.Name()).CombinedOutput(); err != nil {
		return fmt.Errorf("desktop: osacompile: %v: %s", err, bytes.TrimSpace(out))
	}
	return nil
}

// macRegister re-signs the bundle (its Info.plist changed after
// osacompile signed it) and tells Launch Services about its schemes; both
// are best effort: the bundle is found at the next login anyway.
func macRegister(app string) {
	_ = exec.Command("codesign", "--force", "--sign", "-", app).Run()
	lsregister := "/System/Library/Frameworks/CoreServices.framework/Frameworks/LaunchServices.framework/Support/lsregister"
	_ = exec.Command(lsregister, "-f", app).Run()
}

// macTheirs says whether app is there and is another program's bundle
// (its Info.plist names another bundle id, or none), and names its id.
// "Softphone.app" is a name any softphone may take: install replaced such
// a bundle, and uninstall removed it, wholesale (os.RemoveAll).
func macTheirs(app string) (string, bool) {
	if _, err := os.Lstat(app); os.IsNotExist(err) {
		return "", false
	}
	var info macInfo
	if _, err := plist.Unmarshal(mustRead(filepath.Join(app, "Contents", "Info.plist")), &info); err != nil {
		return "", true
	}
	return info.CFBundleIdentifier, info.CFBundleIdentifier != macInfoOf().CFBundleIdentifier
}

func macAgentOf(t Target) macAgentPlist {
	args := append(append([]string{t.Binary}, homeArgs(t)...), "--no-browser")
	return macAgentPlist{Label: macBundleID, ProgramArguments: args, RunAtLoad: true, ProcessType: "Interactive"}
}

func loginMac(t Target, on bool) (string, error) {
	path := macAgent(t)
	if !on {
		if gone, err := removeFile(path); err != nil || !gone {
			return "", err
		}
		return path, nil
	}
	b, err := encodePlist(macAgentOf(t))
	if err != nil {
		return "", err
	}
	return path, writeFile(path, b, 0o644)
}

func uninstallMac(t Target) ([]string, error) {
	app := macApp(t)
	if _, err := os.Stat(app); err != nil {
		return nil, nil
	}
	if _, theirs := macTheirs(app); theirs {
		return nil, nil // another program's Softphone.app stays
	}
	if err := os.RemoveAll(app); err != nil {
		return nil, fmt.Errorf("desktop: %w", err)
	}
	return []string{app}, nil
}

func checkMac(t Target) Status {
	st := Status{OS: t.OS, Links: Item{State: StateNone}, Login: Item{State: StateNone}}
	app := macApp(t)
	if b, err := os.ReadFile(filepath.Join(app, "Contents", "Resources", "dial.applescript")); err == nil {
		want, _ := macScript(t)
		var info macInfo
		_, perr := plist.Unmarshal(mustRead(filepath.Join(app, "Contents", "Info.plist")), &info)
		if string(b) == want && perr == nil && len(info.CFBundleURLTypes) == 1 && slices.Equal(info.CFBundleURLTypes[0].CFBundleURLSchemes, Schemes) {
			st.Links = Item{State: StateOurs, Where: app}
		} else {
			st.Links = Item{State: StateOther, Where: app}
		}
	}
	if b, err := os.ReadFile(macAgent(t)); err == nil {
		var a macAgentPlist
		if _, err := plist.Unmarshal(b, &a); err == nil && slices.Equal(a.ProgramArguments, macAgentOf(t).ProgramArguments) {
			st.Login = Item{State: StateOurs, Where: macAgent(t)}
		} else {
			st.Login = Item{State: StateOther, Where: macAgent(t) + ": " + strings.Join(a.ProgramArguments, " ")}
		}
	}
	return st
}

func mustRead(path string) []byte {
	b, _ := os.ReadFile(path)
	return b
}
