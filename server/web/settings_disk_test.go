package web

import (
	"html"
	"net/url"
	"strings"
	"testing"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
	"github.com/softphone/softphone/views"
)

// TestSettingsFullDiskSaysSo: saving a Settings section, and removing an
// account, while settings.json cannot be written (its disk full) say so in
// the page's language and change nothing. The error was shown as it was,
// English on a German page, with the file's path ("save settings
// /…/settings.json: write …: no space left on device"). The settings are on
// a 256 KiB tmpfs in a private mount namespace (as TestWelcomeFullDisk):
// the test runs itself again there, under unshare -m.
func TestSettingsFullDiskSaysSo(t *testing.T) {
	dir, inside := testpeer.OnSmallTmpfs(t, "256k")
	if !inside {
		return
	}
	r := newRigIn(t, dir, nil)
	if _, err := r.st.Update(func(s *store.Settings) error { s.Appearance.Language = "de"; return nil }); err != nil {
		t.Fatal(err)
	}
	r.login()
	before := r.st.Get()

	testpeer.FillDisk(t, dir)
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
