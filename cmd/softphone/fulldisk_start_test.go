package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/softphone/softphone/internal/testpeer"
)

// tmpfsNamespace holds a private mount namespace (unshare -m) in which home
// is a small tmpfs, for phones started one after the other with nsenter. It
// returns the namespace's holder pid and the home as the test sees it.
func tmpfsNamespace(t *testing.T, home, size string) (int, string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root for unshare -m and mount")
	}
	testpeer.Require(t, "unshare")
	testpeer.Require(t, "nsenter")
	holder := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c",
		`mount -t tmpfs -o size=`+size+`,mode=0700 tmpfs "$1" && echo mounted && exec sleep 600`, "sh", home)
	holder.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = holder.Process.Kill(); _ = holder.Wait() })
	if line, _ := bufio.NewReader(out).ReadString('\n'); strings.TrimSpace(line) != "mounted" {
		t.Fatalf("tmpfs not mounted: %q", line)
	}
	pid := holder.Process.Pid
	return pid, filepath.Join("/proc", strconv.Itoa(pid), "root", home)
}

// phoneIn is the command of a phone in the namespace of pid.
func phoneIn(pid int, home string) *exec.Cmd {
	cmd := exec.Command("nsenter", "-t", strconv.Itoa(pid), "-m", "--", binary, "--home", home, "--no-browser")
	cmd.Env = append(os.Environ(), noKeyring...)
	return cmd
}

// TestFullDiskAtStart: a phone stopped cleanly, then its disk filled (the
// computer restarted because the disk was full, the phone starting at
// login) starts again: its page opens and says the disk is full. Before,
// the start failed on SQLite's -shm file (a clean stop deletes it):
// "open database ...: disk I/O error (4874)", no phone at all. A first
// start on a full disk, with no database yet, still cannot run, but says
// that the disk is full.
func TestFullDiskAtStart(t *testing.T) {
	home := t.TempDir()
	pid, seen := tmpfsNamespace(t, home, "8m")
	writeSettings(t, seen, map[string]any{})

	p := startProc(t, phoneIn(pid, home))
	p.stop(t)
	fill(t, seen)
	p = startProc(t, phoneIn(pid, home))
	page := loginPage(t, p.URL)
	const banner = "The disk is full: history and recordings cannot be saved"
	if !page.has(t, banner) {
		t.Errorf("the page started on a full disk does not say so\n%s", p.Output())
	}
	p.stop(t)

	// A first start: no database, the disk full.
	for _, name := range []string{"softphone.db", "softphone.db-wal", "softphone.db-shm", "softphone.db-reserve", "filler"} {
		_ = os.Remove(filepath.Join(seen, name))
	}
	fill(t, seen)
	cmd := phoneIn(pid, home)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("a first start on a full disk neither ran nor exited:\n%s", out)
	}
	if err == nil || !strings.Contains(string(out), "the disk is full") {
		t.Errorf("a first start on a full disk: %v, without the words 'the disk is full':\n%s", err, out)
	}
}
