package api

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// TestSettingsFullDiskSaysSo: PATCH /settings, and adding, changing or
// removing an account, while settings.json cannot be written (its disk
// full) answer that the disk is full and that nothing changed, and change
// nothing; once there is room the same PATCH is saved. The answer was 500
// "internal error", which told a client neither the cause nor whether the
// change was kept. rest-api.md's error table has no row for a full disk, so
// the status stays 500; only the words are ours (as the keyring's refusals
// of the accounts). settings.json is on a 256 KiB tmpfs in a private mount
// namespace: the test runs itself again there, under unshare -m.
func TestSettingsFullDiskSaysSo(t *testing.T) {
	dir, inside := testpeer.OnSmallTmpfs(t, "256k")
	if !inside {
		return
	}
	var set *store.SettingsStore
	e := newEnvCfg(t, func(c *Config) {
		var err error
		if set, err = store.NewSettingsStore(filepath.Join(dir, "settings.json")); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(set.Close)
		if _, err := set.Update(func(s *store.Settings) error { *s = c.Settings.Get(); return nil }); err != nil {
			t.Fatal(err)
		}
		c.Settings = set
	})
	e.set = set
	e.setToken()
	before := set.Get()
	filler := testpeer.FillDisk(t, dir)
	for _, c := range []struct{ what, method, path, body string }{
		{"a settings patch", "PATCH", "/settings", `{"hotkeys":{"answer":"Alt+Q"}}`},
		{"a new account", "POST", "/accounts", `{"name":"New line","username":"carol","domain":"pbx.test"}`},
		{"a changed account", "PUT", "/accounts/" + accountA, `{"name":"Renamed"}`},
		{"a removed account", "DELETE", "/accounts/" + accountB, ``},
	} {
		r := do(t, c.method, e.base+c.path, c.body, bearer(token))
		if r.status != 500 || !strings.Contains(string(r.body), msgSettingsDiskFull) || strings.Contains(string(r.body), "settings.json") {
			t.Errorf("%s on a full disk: %d %s", c.what, r.status, r.body)
		}
	}
	after := set.Get()
	if after.Hotkeys != before.Hotkeys || len(after.Accounts) != 2 || after.Accounts[0].Name != "Office" {
		t.Fatalf("changed on the full disk: %+v %+v", after.Hotkeys, after.Accounts)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if r := do(t, "PATCH", e.base+"/settings", `{"hotkeys":{"answer":"Alt+Q"}}`, bearer(token)); r.status != 200 || set.Get().Hotkeys.Answer != "Alt+Q" {
		t.Fatalf("with room again: %d %s", r.status, r.body)
	}
}
