package api

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// patchAccountsTo is PATCH /settings with the accounts list replaced by the
// accounts of GET /settings whose id is in keep (RFC 7396 replaces arrays).
func patchAccountsTo(t *testing.T, e *env, keep ...string) resp {
	t.Helper()
	var cur struct {
		Accounts []map[string]any `json:"accounts"`
	}
	e.get("/settings").json(t, &cur)
	list := []map[string]any{}
	for _, a := range cur.Accounts {
		for _, id := range keep {
			if a["id"] == id {
				delete(a, "password_saved")
				list = append(list, a)
			}
		}
	}
	b, err := json.Marshal(map[string]any{"accounts": list})
	if err != nil {
		t.Fatal(err)
	}
	return do(t, "PATCH", e.base+"/settings", string(b), bearer(token))
}

// TestPatchedAwayAccountLeavesNoPassword: an account PATCH /settings leaves
// out of the accounts list takes its password with it, as DELETE
// /accounts/{id} does (ce6423b). The password stayed in the keyring for
// good, a secret without its account that no request could name.
func TestPatchedAwayAccountLeavesNoPassword(t *testing.T) {
	e := newEnv(t)
	e.setToken()
	for _, id := range []string{accountA, accountB} {
		if err := e.sec.Set("account:"+id, "pw-"+id); err != nil {
			t.Fatal(err)
		}
	}
	if r := patchAccountsTo(t, e, accountA); r.status != 200 {
		t.Fatalf("patch: %d %s", r.status, r.body)
	}
	if _, err := e.sec.Get("account:" + accountB); !errors.Is(err, store.ErrNoSecret) {
		t.Errorf("the password of the account patched away lingers: %v", err)
	}
	if pw, err := e.sec.Get("account:" + accountA); err != nil || pw != "pw-"+accountA {
		t.Errorf("the kept account's password: %q %v", pw, err)
	}
}

// TestPatchedAwayAccountKeptWhenItsPasswordStays: when the keyring does not
// let the password of an account the patch leaves out be removed (a full
// disk under secrets.json), nothing is changed and the client is told, as
// for DELETE /accounts/{id}; once there is room the same patch removes
// both. The secrets are on a 64 KiB tmpfs in a private mount namespace.
func TestPatchedAwayAccountKeptWhenItsPasswordStays(t *testing.T) {
	dir, inside := testpeer.OnSmallTmpfs(t, "64k")
	if !inside {
		return
	}
	sec := store.OpenSecrets(dir)
	if !sec.Fallback() {
		t.Skip("a keyring answers: the secrets are not in the tmpfs")
	}
	for name, v := range map[string]string{"api-token": token, "account:" + accountA: "pw-a", "account:" + accountB: "pw-b"} {
		if err := sec.Set(name, v); err != nil {
			t.Fatal(err)
		}
	}
	e := newEnvCfg(t, func(c *Config) { c.Secrets = sec })
	filler := testpeer.FillDisk(t, dir)
	r := patchAccountsTo(t, e, accountA)
	if r.status != 500 || !strings.Contains(string(r.body), msgPasswordKept) {
		t.Fatalf("no room to remove the password: %d %s", r.status, r.body)
	}
	if n := len(e.set.Get().Accounts); n != 2 {
		t.Fatalf("%d accounts after the refused patch", n)
	}
	if pw, err := sec.Get("account:" + accountB); err != nil || pw != "pw-b" {
		t.Fatalf("the kept account's password: %q %v", pw, err)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if r := patchAccountsTo(t, e, accountA); r.status != 200 || len(e.set.Get().Accounts) != 1 {
		t.Fatalf("with room again: %d %s", r.status, r.body)
	}
	if _, err := sec.Get("account:" + accountB); !errors.Is(err, store.ErrNoSecret) {
		t.Fatalf("the password lingers: %v", err)
	}
}
