package web

import (
	"os"
	"strings"
	"testing"
)

func TestDesktopEntries(t *testing.T) {
	home := t.TempDir()
	path, err := InstallDesktopEntry(home, "/opt/soft phone/softphone")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"[Desktop Entry]", "Exec=\"/opt/soft phone/softphone\" dial %u",
		"MimeType=x-scheme-handler/tel;x-scheme-handler/sip;x-scheme-handler/callto;"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("entry lacks %q:\n%s", want, b)
		}
	}
	if !strings.HasSuffix(path, "/.local/share/applications/softphone.desktop") {
		t.Errorf("path %s", path)
	}
	if _, err := InstallDesktopEntry(home, "/bin/x\nExec=rm"); err == nil {
		t.Error("a newline in the path was accepted")
	}
	if err := SetAutostart(home, "/usr/bin/softphone", true); err != nil {
		t.Fatal(err)
	}
	auto := home + "/.config/autostart/softphone.desktop"
	if _, err := os.Stat(auto); err != nil {
		t.Fatal(err)
	}
	if err := SetAutostart(home, "/usr/bin/softphone", false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(auto); !os.IsNotExist(err) {
		t.Fatal("autostart entry not removed")
	}
	// DialURL reads the address the running phone noted.
	if err := os.WriteFile(home+"/"+urlFile, []byte("http://127.0.0.1:8376\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	u, err := DialURL(home, "tel:+49 30 1")
	if err != nil || u != "http://127.0.0.1:8376/dial?uri=tel%3A%2B49+30+1" {
		t.Fatalf("%q %v", u, err)
	}
}
