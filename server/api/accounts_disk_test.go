package api

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/softphone/softphone/store"
)

// fullSecretsDir names, in the child process of
// TestNewAccountNotKeptWithoutItsPassword, the small tmpfs its secrets are on.
const fullSecretsDir = "SOFTPHONE_TEST_TMPFS_SECRETS"

// TestNewAccountNotKeptWithoutItsPassword: POST /accounts while the
// password cannot be kept (secrets.json on a full disk) adds no account,
// and the same request once there is room adds exactly one. The account
// was saved before its password: the refusal left it in settings.json
// without a password, registering in vain, and the client, told 500, added
// it a second time on its retry. The secrets are on a 64 KiB tmpfs in a
// private mount namespace (as server/web's welcome test does it): the test
// runs itself again there, under unshare -m.
func TestNewAccountNotKeptWithoutItsPassword(t *testing.T) {
	dir := os.Getenv(fullSecretsDir)
	if dir == "" {
		if os.Geteuid() != 0 {
			t.Skip("needs root for unshare -m and mount")
		}
		if _, err := exec.LookPath("unshare"); err != nil {
			t.Skip("no unshare")
		}
		dir := t.TempDir()
		script := `mount -t tmpfs -o size=64k,mode=0700 tmpfs "$1" && exec "$2" -test.run '^TestNewAccountNotKeptWithoutItsPassword$' -test.count=1 -test.v`
		cmd := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", dir, os.Args[0])
		cmd.Env = append(os.Environ(), fullSecretsDir+"="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestNewAccountNotKeptWithoutItsPassword") {
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
	dir := os.Getenv(fullSecretsDir)
	if dir == "" {
		if os.Geteuid() != 0 {
			t.Skip("needs root for unshare -m and mount")
		}
		if _, err := exec.LookPath("unshare"); err != nil {
			t.Skip("no unshare")
		}
		dir := t.TempDir()
		script := `mount -t tmpfs -o size=64k,mode=0700 tmpfs "$1" && exec "$2" -test.run '^TestChangedAccountNotSavedWithoutItsPassword$' -test.count=1 -test.v`
		cmd := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", dir, os.Args[0])
		cmd.Env = append(os.Environ(), fullSecretsDir+"="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestChangedAccountNotSavedWithoutItsPassword") {
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
	if err := sec.Set("account:"+accountA, "pw-old"); err != nil {
		t.Fatal(err)
	}
	e := newEnvCfg(t, func(c *Config) { c.Secrets = sec })
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
