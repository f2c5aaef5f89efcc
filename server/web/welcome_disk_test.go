package web

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// TestWelcomeFullDisk: the welcome card's save on a full disk says so in
// words and loses nothing: settings.json and secrets.json stay as they were
// (both are replaced atomically), no password is left without its account,
// the typed fields stay on the card; with space again the same form saves.
// The phone's home is a 256 KiB tmpfs in a private mount namespace (as
// cmd/softphone/fulldisk_test.go does it): the test runs itself again
// there, under unshare -m.
func TestWelcomeFullDisk(t *testing.T) {
	home, inside := testpeer.OnSmallTmpfs(t, "256k")
	if !inside {
		return
	}
	sec := store.OpenSecrets(home)
	r := newRigIn(t, home, func(c *Config) { c.Secrets = sec; c.Home = home })
	noAccounts(t, r, "de")
	if err := sec.Set("other", "kept"); err != nil {
		t.Fatal(err)
	}
	r.login()
	settings, _ := os.ReadFile(filepath.Join(home, "settings.json"))
	secrets, _ := os.ReadFile(filepath.Join(home, store.SecretsFile))
	if len(settings) == 0 || len(secrets) == 0 {
		t.Fatal("nothing saved before the disk filled")
	}

	filler := filepath.Join(home, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 4<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
	}
	_ = f.Close()

	const words = "Der Datenträger ist voll: Das Konto wurde nicht gespeichert"
	typed := url.Values{"domain": {"pbx.test"}, "username": {"carol"}, "password": {"carolpw"}, "transport": {"tcp"}, "port": {"5070"}}
	// With a password: the keyring's file fallback is the first to find
	// the disk full.
	res, body := r.form("/welcome", typed)
	if res.StatusCode != 422 || !strings.Contains(body, words) {
		t.Fatalf("full disk, with password: %d\n%s", res.StatusCode, body)
	}
	for _, kept := range []string{`value="pbx.test"`, `value="carol"`, `value="5070"`, `value="tcp" selected`} {
		if !strings.Contains(body, kept) {
			t.Errorf("the card lost %s", kept)
		}
	}
	// The PBX was asked (that comes before saving); nothing was kept.
	forgetCommands(r)
	welcomeUntouched(t, r, home, "full disk, with password", settings, secrets)
	// Without one: the settings file is.
	noPW := url.Values{"domain": {"pbx.test"}, "username": {"carol"}, "transport": {"udp"}}
	if res, body = r.form("/welcome", noPW); res.StatusCode != 422 || !strings.Contains(body, words) {
		t.Fatalf("full disk, settings: %d\n%s", res.StatusCode, body)
	}
	forgetCommands(r)
	welcomeUntouched(t, r, home, "full disk, settings", settings, secrets)
	if pw, err := sec.Get("other"); err != nil || pw != "kept" {
		t.Fatalf("the other secret: %q %v", pw, err)
	}
	left, _ := os.ReadDir(home)
	for _, e := range left {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("a half-written file was left: %s", e.Name())
		}
	}

	// Space again: the same form saves.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if res, _ = r.form("/welcome", typed); res.StatusCode != 204 {
		t.Fatalf("with space again: %d", res.StatusCode)
	}
	accs := r.st.Get().Accounts
	if len(accs) != 1 || accs[0].Username != "carol" || accs[0].Port != 5070 {
		t.Fatalf("accounts %+v", accs)
	}
	if pw, _ := sec.Get("account:" + accs[0].ID); pw != "carolpw" {
		t.Fatal("password not saved")
	}
	if pw, _ := sec.Get("other"); pw != "kept" {
		t.Fatal("the other secret was lost")
	}
}

func forgetCommands(r *rig) {
	r.phone.mu.Lock()
	r.phone.did = nil
	r.phone.mu.Unlock()
}
