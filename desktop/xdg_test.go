package desktop

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestXDGInstallCheckUninstall(t *testing.T) {
	home := t.TempDir()
	tg := Target{OS: "linux", UserHome: home, Binary: "/opt/soft phone/softphone", PhoneHome: "/home/u/.config/soft$phone 100%"}
	if st := Check(tg); st.Links.State != StateNone || st.Login.State != StateNone {
		t.Fatalf("fresh home: %+v", st)
	}
	wrote, err := Install(tg)
	if err != nil {
		t.Fatal(err)
	}
	entry := filepath.Join(home, ".local/share/applications/softphone.desktop")
	if len(wrote) != 1 || wrote[0] != entry {
		t.Fatalf("wrote %v", wrote)
	}
	b, _ := os.ReadFile(entry)
	for _, want := range []string{"[Desktop Entry]",
		`Exec="/opt/soft phone/softphone" --home "/home/u/.config/soft\$phone 100%%" dial %u`,
		"MimeType=x-scheme-handler/tel;x-scheme-handler/sip;x-scheme-handler/callto;"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("entry lacks %q:\n%s", want, b)
		}
	}
	if where, err := SetStartAtLogin(tg, true); err != nil || where != filepath.Join(home, ".config/autostart/softphone.desktop") {
		t.Fatalf("autostart %s %v", where, err)
	}
	st := Check(tg)
	if st.Links.State != StateOurs || st.Login.State != StateOurs {
		t.Fatalf("after install: %+v", st)
	}
	// Another copy of the binary is "other", with what the entry runs.
	other := tg
	other.Binary = "/usr/bin/softphone"
	if st := Check(other); st.Links.State != StateOther || !strings.Contains(st.Links.Where, "/opt/soft phone/softphone") {
		t.Errorf("another binary sees %+v", st.Links)
	}
	removed, err := Uninstall(tg)
	if err != nil || len(removed) != 2 {
		t.Fatalf("uninstall removed %v, %v", removed, err)
	}
	if st := Check(tg); st.Links.State != StateNone || st.Login.State != StateNone {
		t.Fatalf("after uninstall: %+v", st)
	}
	if removed, err := Uninstall(tg); err != nil || len(removed) != 0 {
		t.Fatalf("second uninstall: %v %v", removed, err)
	}
	for _, bad := range []string{"/bin/x\nExec=rm", `C:\x`, ""} {
		if _, err := Install(Target{OS: "linux", UserHome: home, Binary: bad}); !errors.Is(err, ErrBadPath) {
			t.Errorf("binary %q: %v", bad, err)
		}
	}
}

func TestWindowsTargetElsewhereIsRefused(t *testing.T) {
	if _, err := Install(Target{OS: "windows", Binary: "softphone.exe"}); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("%v", err)
	}
}
