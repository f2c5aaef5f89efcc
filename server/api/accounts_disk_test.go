package api

import (
	"os"
	"strings"
	"testing"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// TestNewAccountNotKeptWithoutItsPassword: POST /accounts while the
// password cannot be kept (secrets.json on a full disk) adds no account,
// and the same request once there is room adds exactly one. The account
// was saved before its password: the refusal left it in settings.json
// without a password, registering in vain, and the client, told 500, added
// it a second time on its retry. The secrets are on a 64 KiB tmpfs in a
// private mount namespace (as server/web's welcome test does it): the test
// runs itself again there, under unshare -m.
func TestNewAccountNotKeptWithoutItsPassword(t *testing.T) {
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
	filler := testpeer.FillDisk(t, dir)
	body := `{"name":"New line","username":"carol","domain":"pbx.test","password":"pw-carol"}`
	if r := e.post("/accounts", body, bearer(token)); r.status < 500 {
		t.Fatalf("no room for the password: %d %s", r.status, r.body)
	}
	count := func() (n int) {
		for _, a := range e.set.Get().Accounts {
			if a.Username == "carol" {
				n++
			}
		}
		return n
	}
	if n := count(); n != 0 {
		t.Fatalf("%d accounts kept without their password", n)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	r := e.post("/accounts", body, bearer(token))
	var a accountJSON
	r.json(t, &a)
	if r.status != 201 || !a.PasswordSaved || count() != 1 {
		t.Fatalf("with room again: %d %s, %d accounts", r.status, r.body, count())
	}
	if pw, err := sec.Get("account:" + a.ID); err != nil || pw != "pw-carol" {
		t.Fatalf("password kept: %q %v", pw, err)
	}
}

// TestChangedAccountNotSavedWithoutItsPassword: PUT /accounts/{id} with
// other fields and a new password while the password cannot be kept
// (secrets.json on a full disk) changes nothing and says why; the same
// request once there is room changes both. The account was saved before its
// password: the client was told 500 while the changes were kept with the
// old password. The secrets are on a 64 KiB tmpfs in a private mount
// namespace, as TestNewAccountNotKeptWithoutItsPassword.
func TestChangedAccountNotSavedWithoutItsPassword(t *testing.T) {
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
	if err := sec.Set("account:"+accountA, "pw-old"); err != nil {
		t.Fatal(err)
	}
	e := newEnvCfg(t, func(c *Config) { c.Secrets = sec })
	filler := testpeer.FillDisk(t, dir)
	body := `{"name":"Renamed","domain":"pbx2.test","password":"pw-new"}`
	r := do(t, "PUT", e.base+"/accounts/"+accountA, body, bearer(token))
	if r.status != 500 || !strings.Contains(string(r.body), msgPasswordNotKept) {
		t.Fatalf("no room for the password: %d %s", r.status, r.body)
	}
	a, _ := findAccount(e.set.Get().Accounts, accountA)
	if a.Name != "Office" || a.Domain != "pbx.test" {
		t.Fatalf("changes kept with the old password: %q %q", a.Name, a.Domain)
	}
	if pw, err := sec.Get("account:" + accountA); err != nil || pw != "pw-old" {
		t.Fatalf("password: %q %v", pw, err)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if r := do(t, "PUT", e.base+"/accounts/"+accountA, body, bearer(token)); r.status != 200 {
		t.Fatalf("with room again: %d %s", r.status, r.body)
	}
	a, _ = findAccount(e.set.Get().Accounts, accountA)
	if a.Name != "Renamed" || a.Domain != "pbx2.test" {
		t.Fatalf("changes not saved: %q %q", a.Name, a.Domain)
	}
	if pw, err := sec.Get("account:" + accountA); err != nil || pw != "pw-new" {
		t.Fatalf("password: %q %v", pw, err)
	}
}
