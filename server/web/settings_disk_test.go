package web

import (
	"errors"
	"html"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/softphone/softphone/store"
	"github.com/softphone/softphone/views"
)

// settingsDiskDir names, in the child process of
// TestSettingsFullDiskSaysSo, the small tmpfs its settings are on.
const settingsDiskDir = "SOFTPHONE_TEST_TMPFS_WEB_SETTINGS"

// TestSettingsFullDiskSaysSo: saving a Settings section, and removing an
// account, while settings.json cannot be written (its disk full) say so in
// the page's language and change nothing. The error was shown as it was,
// English on a German page, with the file's path ("save settings
// /…/settings.json: write …: no space left on device"). The settings are on
// a 256 KiB tmpfs in a private mount namespace (as TestWelcomeFullDisk):
// the test runs itself again there, under unshare -m.
func TestSettingsFullDiskSaysSo(t *testing.T) {
	dir := os.Getenv(settingsDiskDir)
	if dir == "" {
		if os.Geteuid() != 0 {
			t.Skip("needs root for unshare -m and mount")
		}
		if _, err := exec.LookPath("unshare"); err != nil {
			t.Skip("no unshare")
		}
		dir := t.TempDir()
		script := `mount -t tmpfs -o size=256k,mode=0700 tmpfs "$1" && exec "$2" -test.run '^TestSettingsFullDiskSaysSo$' -test.count=1 -test.v`
		cmd := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", dir, os.Args[0])
		cmd.Env = append(os.Environ(), settingsDiskDir+"="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestSettingsFullDiskSaysSo") {
			t.Fatalf("with the tmpfs: %v\n%s", err, out)
		}
		t.Logf("with the tmpfs:\n%s", out)
		return
	}
	var fs syscall.Statfs_t
	if err := syscall.Statfs(dir, &fs); err != nil || fs.Type != 0x01021994 { // TMPFS_MAGIC
		t.Fatalf("%s is not the tmpfs: %v", dir, err)
	}
	r := newRigIn(t, dir, nil)
	if _, err := r.st.Update(func(s *store.Settings) error { s.Appearance.Language = "de"; return nil }); err != nil {
		t.Fatal(err)
	}
	r.login()
	before := r.st.Get()

	filler := filepath.Join(dir, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	for err == nil {
		_, err = f.Write(make([]byte, 4096))
	}
	f.Close()
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("filling the tmpfs: %v", err)
	}
	want := views.L("de").T("settings.diskfull")
	for _, c := range []struct {
		what, path string
		form       url.Values
		status     int
	}{
		{"a section", "/settings/hotkeys", url.Values{"hotkeys.answer": {"Alt+Q"}, "hotkeys.hangup": {"Alt+H"}, "hotkeys.hold": {"Alt+P"}, "hotkeys.mute": {"Alt+M"}}, 422},
		{"an account", "/settings/accounts", url.Values{"do": {"save"}, "id": {"a1"}, "name": {"Alice new"}, "username": {"alice"}, "domain": {"pbx.test"}, "transport": {"udp"}}, 422},
		{"removing an account", "/settings/accounts/a1/delete", url.Values{}, 503},
	} {
		res, body := r.form(c.path, c.form)
		body = html.UnescapeString(body)
		if res.StatusCode != c.status || !strings.Contains(body, want) || strings.Contains(body, "settings.json") {
			t.Errorf("%s: %d, want %d %q in\n%s", c.what, res.StatusCode, c.status, want, body)
		}
	}
	after := r.st.Get()
	if after.Hotkeys != before.Hotkeys || len(after.Accounts) != 1 || after.Accounts[0].Name != "Alice line" {
		t.Fatalf("changed on the full disk: %+v %+v", after.Hotkeys, after.Accounts)
	}
}
