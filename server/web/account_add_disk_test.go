package web

import (
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
	"github.com/softphone/softphone/views"
)

// TestNewAccountNotKeptWithoutItsPassword: adding an account on the
// Settings page while its password cannot be kept (secrets.json on a full
// disk) adds nothing and says why; the same form once there is room adds
// exactly one. The account was saved before its password: the refusal left
// it without its password, registering in vain, and the form, still a new
// account's, added a second on the next press. The secrets are on a 64 KiB
// tmpfs in a private mount namespace (as TestWelcomeFullDisk): the test
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

	filler := testpeer.FillDisk(t, dir)
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
	dir, inside := testpeer.OnSmallTmpfs(t, "64k")
	if !inside {
		return
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

	filler := testpeer.FillDisk(t, dir)
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
