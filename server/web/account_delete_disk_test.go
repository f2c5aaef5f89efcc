package web

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
	"github.com/softphone/softphone/views"
)

// TestDeletedAccountLeavesNoPassword: removing an account on the Settings
// page while its password cannot be removed (secrets.json on a full disk)
// keeps the account and says why in the page's language; with room again
// the same press removes both. The account was removed first and the
// keyring's refusal only logged: the password stayed in the keyring for
// good, a secret without its account. The secrets are on a 64 KiB tmpfs in
// a private mount namespace (as TestWelcomeFullDisk): the test runs itself
// again there, under unshare -m.
func TestDeletedAccountLeavesNoPassword(t *testing.T) {
	dir, inside := testpeer.OnSmallTmpfs(t, "64k")
	if !inside {
		return
	}
	sec := store.OpenSecrets(dir)
	if !sec.Fallback() {
		t.Skip("a keyring answers: the secrets are not in the tmpfs")
	}
	if err := sec.Set("account:a1", "pw-alice"); err != nil {
		t.Fatal(err)
	}
	r := newRig(t, func(c *Config) { c.Secrets = sec })
	if _, err := r.st.Update(func(s *store.Settings) error { s.Appearance.Language = "de"; return nil }); err != nil {
		t.Fatal(err)
	}
	r.login()

	filler := testpeer.FillDisk(t, dir)
	res, body := r.form("/settings/accounts/a1/delete", nil)
	if want := views.L("de").T("account.password_kept"); res.StatusCode != 503 || !strings.Contains(body, want) {
		t.Fatalf("no room to remove the password: %d %s", res.StatusCode, body)
	}
	if n := len(r.st.Get().Accounts); n != 1 {
		t.Fatalf("%d accounts: the account is gone, its password left behind", n)
	}
	if pw, err := sec.Get("account:a1"); err != nil || pw != "pw-alice" {
		t.Fatalf("the kept account's password: %q %v", pw, err)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if res, _ = r.form("/settings/accounts/a1/delete", nil); res.StatusCode != 204 {
		t.Fatalf("with room again: %d", res.StatusCode)
	}
	if n := len(r.st.Get().Accounts); n != 0 {
		t.Fatalf("%d accounts left", n)
	}
	if _, err := sec.Get("account:a1"); !errors.Is(err, store.ErrNoSecret) {
		t.Fatalf("the password lingers: %v", err)
	}
}
