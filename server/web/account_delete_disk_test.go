package web

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/softphone/softphone/store"
	"github.com/softphone/softphone/views"
)

// deleteSecretsDir names, in the child process of
// TestDeletedAccountLeavesNoPassword, the small tmpfs its secrets are on.
const deleteSecretsDir = "SOFTPHONE_TEST_TMPFS_WEB_DELETE"

// TestDeletedAccountLeavesNoPassword: removing an account on the Settings
// page while its password cannot be removed (secrets.json on a full disk)
// keeps the account and says why in the page's language; with room again
// the same press removes both. The account was removed first and the
// keyring's refusal only logged: the password stayed in the keyring for
// good, a secret without its account. The secrets are on a 64 KiB tmpfs in
// a private mount namespace (as TestWelcomeFullDisk): the test runs itself
// again there, under unshare -m.
func TestDeletedAccountLeavesNoPassword(t *testing.T) {
	dir := os.Getenv(deleteSecretsDir)
	if dir == "" {
		if os.Geteuid() != 0 {
			t.Skip("needs root for unshare -m and mount")
		}
		if _, err := exec.LookPath("unshare"); err != nil {
			t.Skip("no unshare")
		}
		dir := t.TempDir()
		script := `mount -t tmpfs -o size=64k,mode=0700 tmpfs "$1" && exec "$2" -test.run '^TestDeletedAccountLeavesNoPassword$' -test.count=1 -test.v`
		cmd := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", dir, os.Args[0])
		cmd.Env = append(os.Environ(), deleteSecretsDir+"="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestDeletedAccountLeavesNoPassword") {
			t.Fatalf("with the tmpfs: %v\n%s", err, out)
		}
		t.Logf("with the tmpfs:\n%s", out)
		return
	}
	var fs syscall.Statfs_t
	if err := syscall.Statfs(dir, &fs); err != nil || fs.Type != 0x01021994 { // TMPFS_MAGIC
		t.Fatalf("%s is not the tmpfs: %v", dir, err)
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
