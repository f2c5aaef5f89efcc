package main

import (
	"fmt"
	"os"
	"testing"
)

// runTB is the testing.TB that internal/testpeer wants (Kamailio,
// StartBaresip), for a program: Fatal stops the program after running the
// cleanups, so the peers never outlive it. Methods testpeer does not call
// are left to the embedded nil interface.
type runTB struct {
	testing.TB
	cleanups []func()
	dirs     []string
}

func (t *runTB) Helper()                       {}
func (t *runTB) Logf(format string, a ...any)  { fmt.Fprintf(os.Stderr, format+"\n", a...) }
func (t *runTB) Cleanup(f func())              { t.cleanups = append(t.cleanups, f) }
func (t *runTB) Setenv(k, v string)            { _ = os.Setenv(k, v) }
func (t *runTB) Skipf(format string, a ...any) { t.Fatalf(format, a...) }
func (t *runTB) Fatal(a ...any)                { t.fail(fmt.Sprint(a...)) }
func (t *runTB) Fatalf(format string, a ...any) {
	t.fail(fmt.Sprintf(format, a...))
}

func (t *runTB) TempDir() string {
	d, err := os.MkdirTemp("", "callcpu-")
	if err != nil {
		t.Fatal(err)
	}
	t.dirs = append(t.dirs, d)
	return d
}

func (t *runTB) fail(msg string) {
	fmt.Fprintln(os.Stderr, "callcpu:", msg)
	t.close()
	os.Exit(1)
}

// close runs the cleanups, last first, then removes the temporary folders.
func (t *runTB) close() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
	t.cleanups = nil
	for _, d := range t.dirs {
		_ = os.RemoveAll(d)
	}
	t.dirs = nil
}
