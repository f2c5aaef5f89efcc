package testpeer

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// RssFileKB is this process's file-backed resident memory in kB (RssFile in
// /proc/self/status, proc(5)): what of the executable and other files is
// mapped in, the figure the executable-page release lowers.
func RssFileKB(t testing.TB) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "RssFile:" {
			n, err := strconv.Atoi(f[1])
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no RssFile in /proc/self/status")
	return 0
}
