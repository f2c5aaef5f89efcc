package api

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/softphone/softphone/store"
)

// deleteSecretsDir names, in the child process of
// TestDeletedAccountLeavesNoPassword, the small tmpfs its secrets are on.
const deleteSecretsDir = "SOFTPHONE_TEST_TMPFS_DELETE"

// TestDeletedAccountLeavesNoPassword: DELETE /accounts/{id} while the
// password cannot be removed (secrets.json on a full disk) keeps the
// account and says why; once there is room the same request removes both.
// The account was removed first: the refusal left its password in the
// keyring for good, a secret without its account, and the client's retry
// got 404. The secrets are on a 64 KiB tmpfs in a private mount namespace
// (as TestNewAccountNotKeptWithoutItsPassword): the test runs itself again
// there, under unshare -m.
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
	if err := sec.Set("api-token", token); err != nil {
		t.Fatal(err)
	}
	e := newEnvCfg(t, func(c *Config) { c.Secrets = sec })
	r := e.post("/accounts", `{"name":"Old line","username":"dave","domain":"pbx.test","password":"pw-dave"}`, bearer(token))
	var a accountJSON
	r.json(t, &a)
	if r.status != 201 || !a.PasswordSaved {
		t.Fatalf("add: %d %s", r.status, r.body)
	}
	kept := func() bool {
		return slices.ContainsFunc(e.set.Get().Accounts, func(x store.Account) bool { return x.ID == a.ID })
	}

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
	r = do(t, "DELETE", e.base+"/accounts/"+a.ID, "", bearer(token))
	if r.status != 500 || !strings.Contains(string(r.body), msgPasswordKept) {
		t.Fatalf("no room to remove the password: %d %s", r.status, r.body)
	}
	if !kept() {
		t.Fatal("the account is gone, its password left behind")
	}
	if pw, err := sec.Get("account:" + a.ID); err != nil || pw != "pw-dave" {
		t.Fatalf("the kept account's password: %q %v", pw, err)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if r = do(t, "DELETE", e.base+"/accounts/"+a.ID, "", bearer(token)); r.status != 204 {
		t.Fatalf("with room again: %d %s", r.status, r.body)
	}
	if kept() {
		t.Fatal("the account is still there")
	}
	if _, err := sec.Get("account:" + a.ID); !errors.Is(err, store.ErrNoSecret) {
		t.Fatalf("the password lingers: %v", err)
	}
}
