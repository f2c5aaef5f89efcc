package testpeer

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// tmpfsDirEnv names, in the child process OnSmallTmpfs starts, the small
// tmpfs mounted for it.
const tmpfsDirEnv = "SOFTPHONE_TEST_TMPFS_DIR"

// tmpfsMagic is TMPFS_MAGIC from linux/magic.h, statfs(2)'s f_type of a tmpfs.
const tmpfsMagic = 0x01021994

// OnSmallTmpfs runs the calling test on a tmpfs of the given size (as mount's
// size= takes it, e.g. "64k"), so that the test can fill that disk. A full
// disk needs its own small filesystem, and mounting one needs root and a
// private mount namespace (unshare -m) so that the mount is neither seen by
// nor left behind for the rest of the machine: the test therefore runs
// itself again, alone, in a child process under unshare -m that mounts the
// tmpfs first.
//
// In the test's own process it skips without root or unshare, otherwise runs
// the child, fails with the child's output unless the child's test passed,
// logs that output, and returns inside=false: the caller returns at once. In
// the child it checks the directory really is a tmpfs and returns it with
// inside=true: the caller goes on with the test's body.
func OnSmallTmpfs(t *testing.T, size string) (dir string, inside bool) {
	t.Helper()
	if dir := os.Getenv(tmpfsDirEnv); dir != "" {
		var fs syscall.Statfs_t
		if err := syscall.Statfs(dir, &fs); err != nil || fs.Type != tmpfsMagic {
			t.Fatalf("%s is not the tmpfs: %v", dir, err)
		}
		return dir, true
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root for unshare -m and mount")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare")
	}
	dir = t.TempDir()
	name := t.Name()
	script := `mount -t tmpfs -o size=` + size + `,mode=0700 tmpfs "$1" && exec "$2" -test.run "$3" -test.count=1 -test.v`
	cmd := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c", script,
		"sh", dir, os.Args[0], "^"+regexp.QuoteMeta(name)+"$")
	cmd.Env = append(os.Environ(), tmpfsDirEnv+"="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+name) {
		t.Fatalf("with the tmpfs: %v\n%s", err, out)
	}
	t.Logf("with the tmpfs:\n%s", out)
	return "", false
}

// FillDisk fills the filesystem of dir (a small tmpfs from OnSmallTmpfs) with
// a file until a write fails with ENOSPC, and returns that file's path:
// removing it makes room again.
func FillDisk(t *testing.T, dir string) (filler string) {
	t.Helper()
	filler = filepath.Join(dir, "filler")
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
	return filler
}
