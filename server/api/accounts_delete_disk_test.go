package api

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// TestDeletedAccountLeavesNoPassword: DELETE /accounts/{id} while the
// password cannot be removed (secrets.json on a full disk) keeps the
// account and says why; once there is room the same request removes both.
// The account was removed first: the refusal left its password in the
// keyring for good, a secret without its account, and the client's retry
// got 404. The secrets are on a 64 KiB tmpfs in a private mount namespace
// (as TestNewAccountNotKeptWithoutItsPassword): the test runs itself again
// there, under unshare -m.
func TestDeletedAccountLeavesNoPassword(t *testing.T) {
	dir, inside := testpeer.OnSmallTmpfs(t, "64k")
	if !inside {
		return
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

	filler := testpeer.FillDisk(t, dir)
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
