package store

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/softphone/softphone/internal/testpeer"
)

// The D-Bus connection of go-keyring is shared for the whole process and
// kept once made, so the fallback cases run in a child process of this test
// binary with their own DBUS_SESSION_BUS_ADDRESS. Only tests that call
// testpeer.WithKeyring first may touch the keyring in this process.

const childEnv = "STORE_SECRETS_CHILD"

// runChild runs the test named name in a child process with extra env and
// fails when the child fails.
func runChild(t *testing.T, name string, env ...string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$", "-test.v")
	cmd.Env = append(os.Environ(), append([]string{childEnv + "=1"}, env...)...)
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("--- PASS: "+name)) {
		t.Fatalf("child %s: %v\n%s", name, err, out)
	}
}

func childOnly(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("runs as a child process of another test")
	}
}

// exerciseSecrets checks Set, Get, Has and Delete on s.
func exerciseSecrets(t *testing.T, s *Secrets) {
	t.Helper()
	if _, err := s.Get("api-token"); !errors.Is(err, ErrNoSecret) {
		t.Fatalf("Get(unset) = %v, want ErrNoSecret", err)
	}
	if s.Has("api-token") {
		t.Fatal("Has(unset)")
	}
	for name, v := range map[string]string{"api-token": "tok-Ünïcode 1", "account:a1": "pw with spaces", "webhook-header": "Bearer x"} {
		if err := s.Set(name, v); err != nil {
			t.Fatal(err)
		}
		got, err := s.Get(name)
		if err != nil || got != v {
			t.Fatalf("Get(%s) = %q, %v", name, got, err)
		}
		if !s.Has(name) {
			t.Fatalf("Has(%s) false", name)
		}
	}
	if err := s.Set("api-token", "second"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get("api-token"); got != "second" {
		t.Fatalf("overwrite: %q", got)
	}
	for _, name := range []string{"api-token", "account:a1", "webhook-header"} {
		if err := s.Delete(name); err != nil {
			t.Fatal(err)
		}
		if s.Has(name) {
			t.Fatalf("%s still there after Delete", name)
		}
	}
	if err := s.Delete("never-set"); err != nil {
		t.Fatalf("Delete(unset) = %v", err)
	}
	if err := s.Set("recogniser:http", "k"); err != nil {
		t.Fatal(err)
	}
	if err := s.Set("recogniser:http", ""); err != nil || s.Has("recogniser:http") {
		t.Fatalf("Set(empty) should delete: %v", err)
	}
}

func TestSecretsKeyring(t *testing.T) {
	testpeer.WithKeyring(t)
	home := t.TempDir()
	s := OpenSecrets(home)
	if s.Fallback() {
		t.Fatal("keyring reported unavailable")
	}
	if !strings.HasPrefix(s.Service(), "softphone:") || len(s.Service()) != len("softphone:")+12 {
		t.Fatalf("service %q", s.Service())
	}
	exerciseSecrets(t, s)
	if _, err := os.Stat(filepath.Join(home, SecretsFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("secrets.json written although the keyring works: %v", err)
	}

	// Two homes, two services: one phone does not see the other's secrets.
	other := OpenSecrets(t.TempDir())
	if other.Service() == s.Service() {
		t.Fatal("same service for two homes")
	}
	if err := s.Set("api-token", "mine"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Delete("api-token") })
	if other.Has("api-token") {
		t.Fatal("the other home sees the secret")
	}
	// The same home opened again (a restart) finds it.
	if got, err := OpenSecrets(home).Get("api-token"); err != nil || got != "mine" {
		t.Fatalf("after reopen: %q, %v", got, err)
	}
}

// TestSecretsKeyringPicksUpFallbackFile: a secret saved in secrets.json while
// the keyring was away is still found, and moves to the keyring when set again.
func TestSecretsKeyringPicksUpFallbackFile(t *testing.T) {
	testpeer.WithKeyring(t)
	home := t.TempDir()
	file := filepath.Join(home, SecretsFile)
	if err := os.WriteFile(file, []byte(`{"account:a1":"from-file"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := OpenSecrets(home)
	if got, err := s.Get("account:a1"); err != nil || got != "from-file" {
		t.Fatalf("Get = %q, %v", got, err)
	}
	if err := s.Set("account:a1", "in-keyring"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Delete("account:a1") })
	if b, _ := os.ReadFile(file); bytes.Contains(b, []byte("from-file")) {
		t.Fatalf("old value left in the file: %s", b)
	}
	if got, _ := s.Get("account:a1"); got != "in-keyring" {
		t.Fatalf("Get = %q", got)
	}
}

func TestSecretsFallbackNoBus(t *testing.T) {
	runChild(t, "TestChildSecretsFallback", "DBUS_SESSION_BUS_ADDRESS=unix:path="+filepath.Join(t.TempDir(), "no-bus"))
}

// TestSecretsFallbackHungKeyring: a bus that accepts the connection and then
// never answers must not hang the phone: OpenSecrets gives up after 3 s.
func TestSecretsFallbackHungKeyring(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "bus")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c) // held open, never answered
		}
	}()
	runChild(t, "TestChildSecretsFallback", "DBUS_SESSION_BUS_ADDRESS=unix:path="+sock)
}

func TestChildSecretsFallback(t *testing.T) {
	childOnly(t)
	home := t.TempDir()
	s := OpenSecrets(home)
	if !s.Fallback() {
		t.Fatal("Fallback() = false without a keyring")
	}
	exerciseSecrets(t, s)
	if err := s.Set("account:a1", "pw"); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(home, SecretsFile))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("secrets.json mode %v, want 0600", fi.Mode().Perm())
	}
	if got, err := OpenSecrets(home).Get("account:a1"); err != nil || got != "pw" {
		t.Fatalf("after reopen: %q, %v", got, err)
	}
	plantAndGrep(t, home, s)
}

func TestSecretNotInFilesKeyring(t *testing.T) {
	testpeer.WithKeyring(t)
	home := t.TempDir()
	s := OpenSecrets(home)
	plantAndGrep(t, home, s)
}

// plantAndGrep sets every kind of secret while settings and the database are
// in use, then greps settings.json and the database files for the values.
func plantAndGrep(t *testing.T, home string, s *Secrets) {
	t.Helper()
	ctx := context.Background()
	st, err := NewSettingsStore(filepath.Join(home, "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	db, err := OpenDB(filepath.Join(home, "softphone.db"))
	if err != nil {
		t.Fatal(err)
	}
	secrets := map[string]string{
		"api-token": "PLANTED-api-7f3a", "webhook-header": "PLANTED-hdr-91bc", "webhook-signing": "PLANTED-sig-22de",
		"account:a1": "PLANTED-pw-5e6f", "recogniser:http": "PLANTED-key-0a1b",
	}
	for name, v := range secrets {
		if err := s.Set(name, v); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Delete(name) })
	}
	if _, err := st.Update(func(x *Settings) error {
		x.API.Enabled, x.API.TokenSaved = true, s.Has("api-token")
		x.Webhooks.HeaderValueSaved = s.Has("webhook-header")
		x.Accounts = []Account{{ID: "a1", Username: "alice", Domain: "pbx", Enabled: true, PasswordSaved: s.Has("account:a1")}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.StartHistory(ctx, HistoryEntry{CallID: "c1", Number: "200"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.EnqueueOutbox(ctx, OutboxEvent{CallID: "c1", Event: "call-started"}, 10); err != nil {
		t.Fatal(err)
	}
	grepSecrets(t, home, secrets) // with the WAL still there
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	grepSecrets(t, home, secrets)
}

func grepSecrets(t *testing.T, home string, secrets map[string]string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(home, "softphone.db*"))
	files = append(files, filepath.Join(home, "settings.json"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for name, v := range secrets {
			if bytes.Contains(b, []byte(v)) {
				t.Errorf("secret %s found in %s", name, f)
			}
		}
		if bytes.Contains(b, []byte("PLANTED")) {
			t.Errorf("a planted secret found in %s", f)
		}
	}
	t.Logf("checked %d files: %v", len(files), files)
}
