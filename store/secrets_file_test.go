package store

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fallbackSecrets is the secrets of home kept in secrets.json, without
// asking a keyring (the keyring's own tests run in child processes).
func fallbackSecrets(home string) *Secrets {
	return &Secrets{service: "softphone:test", file: filepath.Join(home, SecretsFile), fallback: true}
}

// TestSecretsFileFIFORefused: a secrets.json that is a named pipe (no writer
// will ever come) is refused at once. Before, every reading of a secret
// blocked for ever in open(2) holding the secrets' lock: an account's
// registration, the webhook sender, and every API request with a token
// (the keyring answers "not set" for a secret kept only in the file, and
// the file is then read too), without a word.
func TestSecretsFileFIFORefused(t *testing.T) {
	home := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(home, SecretsFile), 0o600); err != nil {
		t.Skip("no mkfifo:", err)
	}
	s := fallbackSecrets(home)
	done := make(chan error, 1)
	go func() { _, err := s.Get("api-token"); done <- err }()
	select {
	case err := <-done:
		if err == nil || errors.Is(err, ErrNoSecret) || !strings.Contains(err.Error(), "not a regular file") {
			t.Fatalf("a FIFO as secrets file: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("reading a secret blocked on a FIFO secrets.json")
	}
}

// TestSecretsFileHugeRefusedBySize: a secrets.json of 512 MiB (here sparse)
// is refused by its size, without reading it into memory: each reading of
// a secret read it whole (512 MiB, the JSON decoder's failure after), and
// the webhook sender and the API's token read secrets often.
func TestSecretsFileHugeRefusedBySize(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, SecretsFile)
	const size = 512 << 20
	if err := os.WriteFile(path, []byte(`{"api-token": "x"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
	s := fallbackSecrets(home)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := s.Get("api-token")
	runtime.ReadMemStats(&after)
	if err == nil || errors.Is(err, ErrNoSecret) || !strings.Contains(err.Error(), "536870912 bytes") {
		t.Fatalf("a %d-byte secrets file: %v", size, err)
	}
	if took := after.TotalAlloc - before.TotalAlloc; took > 16<<20 {
		t.Errorf("refusing the file allocated %d MiB", took>>20)
	}
	if err := s.Set("api-token", "y"); err == nil {
		t.Error("a secret saved over a file that could not be read")
	}
	if st, err := os.Stat(path); err != nil || st.Size() != size {
		t.Errorf("the file was changed: %v %v", st, err)
	}
}
