package web

import (
	"errors"
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

// addSecretsDir names, in the child process of
// TestNewAccountNotKeptWithoutItsPassword, the small tmpfs its secrets are on.
const addSecretsDir = "SOFTPHONE_TEST_TMPFS_WEB_ADD"

// TestNewAccountNotKeptWithoutItsPassword: adding an account on the
// Settings page while its password cannot be kept (secrets.json on a full
// disk) adds nothing and says why; the same form once there is room adds
// exactly one. The account was saved before its password: the refusal left
// it without its password, registering in vain, and the form, still a new
// account's, added a second on the next press. The secrets are on a 64 KiB
// tmpfs in a private mount namespace (as TestWelcomeFullDisk): the test
// runs itself again there, under unshare -m.
func TestNewAccountNotKeptWithoutItsPassword(t *testing.T) {
	dir := os.Getenv(addSecretsDir)
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
		cmd.Env = append(os.Environ(), addSecretsDir+"="+dir)
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
	if err := sec.Set("other", "kept"); err != nil {
		t.Fatal(err)
	}
	r := newRig(t, func(c *Config) { c.Secrets = sec })
	r.login()
	count := func() (n int, id string) {
		for _, a := range r.st.Get().Accounts {
			if a.Username == "carol" {
				n, id = n+1, a.ID
			}
		}
		return n, id
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
	form := url.Values{"do": {"save"}, "name": {"Carol line"}, "username": {"carol"}, "domain": {"pbx.test"}, "transport": {"udp"}, "password": {"pw-carol"}}
	res, body := r.form("/settings/accounts", form)
	if want := views.L("en").T("err.keyring"); res.StatusCode != 422 || !strings.Contains(body, want) {
		t.Fatalf("no room for the password: %d, want %q", res.StatusCode, want)
	}
	if n, _ := count(); n != 0 {
		t.Fatalf("%d accounts kept without their password", n)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if res, _ = r.form("/settings/accounts", form); res.StatusCode != 200 {
		t.Fatalf("with room again: %d", res.StatusCode)
	}
	n, id := count()
	if n != 1 {
		t.Fatalf("%d accounts", n)
	}
	if pw, err := sec.Get("account:" + id); err != nil || pw != "pw-carol" {
		t.Fatalf("password kept: %q %v", pw, err)
	}
}

// TestChangedAccountNotSavedWithoutItsPassword: changing an account on the
// Settings page with a new password while the password cannot be kept
// (secrets.json on a full disk) changes nothing and says why; the same form
// once there is room changes both. The account was saved before its
// password: the page said the keyring refused while the changes were kept
// with the old password. The secrets are on a 64 KiB tmpfs in a private
// mount namespace, as TestNewAccountNotKeptWithoutItsPassword.
func TestChangedAccountNotSavedWithoutItsPassword(t *testing.T) {
	dir := os.Getenv(addSecretsDir)
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
		cmd.Env = append(os.Environ(), addSecretsDir+"="+dir)
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
	if err := sec.Set("account:a1", "pw-old"); err != nil {
		t.Fatal(err)
	}
	r := newRig(t, func(c *Config) { c.Secrets = sec })
	r.login()
	account := func() store.Account {
		for _, a := range r.st.Get().Accounts {
			if a.ID == "a1" {
				return a
			}
		}
		t.Fatal("account a1 gone")
		return store.Account{}
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
	form := url.Values{"do": {"save"}, "id": {"a1"}, "name": {"Alice new"}, "username": {"alice"}, "domain": {"pbx2.test"},
		"transport": {"udp"}, "enabled": {"on"}, "password": {"pw-new"}}
	res, body := r.form("/settings/accounts", form)
	if want := views.L("en").T("err.keyring"); res.StatusCode != 422 || !strings.Contains(body, want) {
		t.Fatalf("no room for the password: %d, want %q", res.StatusCode, want)
	}
	if a := account(); a.Name != "Alice line" || a.Domain != "pbx.test" {
		t.Fatalf("changes kept with the old password: %q %q", a.Name, a.Domain)
	}
	if pw, err := sec.Get("account:a1"); err != nil || pw != "pw-old" {
		t.Fatalf("password: %q %v", pw, err)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if res, _ = r.form("/settings/accounts", form); res.StatusCode != 200 {
		t.Fatalf("with room again: %d", res.StatusCode)
	}
	if a := account(); a.Name != "Alice new" || a.Domain != "pbx2.test" {
		t.Fatalf("changes not saved: %q %q", a.Name, a.Domain)
	}
	if pw, err := sec.Get("account:a1"); err != nil || pw != "pw-new" {
		t.Fatalf("password: %q %v", pw, err)
	}
}
