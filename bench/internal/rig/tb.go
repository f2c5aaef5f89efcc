// Package rig is what the benchmark programs share: a testing.TB for
// internal/testpeer outside a test, the CPU of a process, wrk, the machine's
// name, and a packet sniffer on loopback.
package rig

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TB is the testing.TB that internal/testpeer wants (Kamailio,
// StartBaresip), for a program: Fatal stops the program after running the
// cleanups, so the peers never outlive it. Methods testpeer does not call
// are left to the embedded nil interface.
type TB struct {
	testing.TB
	cleanups []func()
	dirs     []string
}

func (t *TB) Helper()                       {}
func (t *TB) Logf(format string, a ...any)  { fmt.Fprintf(os.Stderr, format+"\n", a...) }
func (t *TB) Cleanup(f func())              { t.cleanups = append(t.cleanups, f) }
func (t *TB) Setenv(k, v string)            { _ = os.Setenv(k, v) }
func (t *TB) Skipf(format string, a ...any) { t.Fatalf(format, a...) }
func (t *TB) Fatal(a ...any)                { t.fail(fmt.Sprint(a...)) }
func (t *TB) Fatalf(format string, a ...any) {
	t.fail(fmt.Sprintf(format, a...))
}

func (t *TB) TempDir() string {
	d, err := os.MkdirTemp("", "bench-")
	if err != nil {
		t.Fatal(err)
	}
	t.dirs = append(t.dirs, d)
	return d
}

func (t *TB) fail(msg string) {
	fmt.Fprintln(os.Stderr, filepath.Base(os.Args[0])+":", msg)
	t.Close()
	os.Exit(1)
}

// Close runs the cleanups, last first, then removes the temporary folders.
func (t *TB) Close() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
	t.cleanups = nil
	for _, d := range t.dirs {
		_ = os.RemoveAll(d)
	}
	t.dirs = nil
}
