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

// TestLoadSettingsHugeFileRefusedBySize: a settings.json of 512 MiB left
// from before (here sparse: zeros) is refused with words naming its size,
// without reading it into memory (before, os.ReadFile took all 512 MiB and
// the decoder then failed on its first byte), and is left untouched.
func TestLoadSettingsHugeFileRefusedBySize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	const size = 512 << 20
	if err := os.WriteFile(path, []byte(`{"api": {"port": 8377}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := LoadSettings(path)
	runtime.ReadMemStats(&after)
	if err == nil || !errors.Is(err, ErrSettings) {
		t.Fatalf("a %d-byte settings file: %v", size, err)
	}
	for _, want := range []string{path, "536870912 bytes", "at most 4194304 bytes"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if took := after.TotalAlloc - before.TotalAlloc; took > 16<<20 {
		t.Errorf("refusing the file allocated %d MiB", took>>20)
	}
	if st, err := os.Stat(path); err != nil || st.Size() != size {
		t.Errorf("the file was changed: %v %v", st, err)
	}
}

// TestLoadSettingsFIFORefused: a settings.json that is a named pipe (no
// writer will ever come) is refused at once; before, the start blocked for
// ever in open(2) without a word.
func TestLoadSettingsFIFORefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skip("no mkfifo:", err)
	}
	done := make(chan error, 1)
	go func() { _, err := LoadSettings(path); done <- err }()
	select {
	case err := <-done:
		if err == nil || !errors.Is(err, ErrSettings) || !strings.Contains(err.Error(), "not a regular file") {
			t.Fatalf("a FIFO as settings file: %v", err)
		}
	case <-time.After(5 * time.Second):
		// Unblock the open, so the goroutine ends with the test.
		if f, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		<-done
		t.Fatal("loading a FIFO as settings file still blocked after 5 s")
	}
}
