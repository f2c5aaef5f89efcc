package testpeer

import (
	"bufio"
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

//go:embed testdata/kamailio-presence.cfg
var kamailioPresenceCfg string

//go:embed testdata/presence-db.sh
var presenceDBScript string

//go:embed testdata/pickup_caller.py
var pickupCaller string

// KamPresence is kamailio as registrar, proxy and presence server
// (kamailio-presence.cfg of the harness): the dialog event package for
// every call routed through it, presence PUBLISH/SUBSCRIBE, message-summary
// (a PUBLISH for alice is NOTIFYed to alice's subscribers), and pickup (an
// INVITE with Replaces naming a call ringing here, or to **USER). Users
// alice, bob, carol, voicemail with passwords USERpw.
type KamPresence struct {
	Kam
	t    testing.TB
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has ended
	gen  int
}

// KamailioPresence starts it for the test; it stops when the test ends.
func KamailioPresence(t testing.TB) *KamPresence {
	t.Helper()
	Require(t, "kamailio", "python3")
	if _, err := os.Stat("/usr/share/kamailio/db_sqlite/presence-create.sql"); err != nil {
		Require(t, "kamailio-sqlite-modules (/usr/share/kamailio/db_sqlite)")
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "presence-db.sh")
	if err := os.WriteFile(script, []byte(presenceDBScript), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("sh", script, dir).CombinedOutput(); err != nil {
		t.Fatalf("presence-db.sh: %v\n%s", err, out)
	}
	port := FreeSIPPort(t)
	cfg := strings.ReplaceAll(kamailioPresenceCfg, "@PORT@", itoa(port))
	cfg = strings.ReplaceAll(cfg, "@RUNDIR@", dir)
	if err := os.WriteFile(filepath.Join(dir, "kamailio.cfg"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	k := &KamPresence{Kam: Kam{Port: port, Dir: dir}, t: t}
	t.Cleanup(k.Stop)
	k.Start()
	return k
}

// Start runs kamailio (again, after Stop: a registrar restart that forgets
// every registration and subscription, which it keeps in memory). One
// cleanup, made when the test started it, stops whichever runs at the end,
// after the phones of the test have stopped.
func (k *KamPresence) Start() {
	k.t.Helper()
	k.gen++
	logName := "kamailio.log"
	if k.gen > 1 {
		logName = fmt.Sprintf("kamailio-%d.log", k.gen)
	}
	f, err := os.Create(filepath.Join(k.Dir, logName))
	if err != nil {
		k.t.Fatal(err)
	}
	cmd := exec.Command("kamailio", "-f", filepath.Join(k.Dir, "kamailio.cfg"), "-DD", "-E", "-Y", k.Dir, "-m", "64", "-M", "8")
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := cmd.Start(); err != nil {
		f.Close()
		k.t.Fatalf("start kamailio: %v", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); f.Close(); close(done) }()
	k.cmd, k.done = cmd, done
	if !WaitFor(10*time.Second, func() bool { return Listening("udp", k.Port) && Listening("tcp", k.Port) }) {
		k.t.Fatalf("kamailio did not listen on %d:\n%s", k.Port, k.Log())
	}
}

// Stop ends kamailio (SIGTERM, then SIGKILL) and waits for it.
func (k *KamPresence) Stop() {
	if k.cmd == nil {
		return
	}
	_ = syscall.Kill(-k.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-k.done:
	case <-time.After(3 * time.Second):
		_ = syscall.Kill(-k.cmd.Process.Pid, syscall.SIGKILL)
		<-k.done
	}
	k.cmd = nil
}

// Log is everything kamailio printed, over restarts.
func (k *KamPresence) Log() string {
	var b strings.Builder
	b.WriteString(k.Kam.Log())
	for g := 2; g <= k.gen; g++ {
		out, _ := os.ReadFile(filepath.Join(k.Dir, fmt.Sprintf("kamailio-%d.log", g)))
		fmt.Fprintf(&b, "--- restart %d ---\n%s", g, out)
	}
	return b.String()
}

// Caller is pickup/caller.py of the harness: a caller whose ringing call
// can be picked up (it accepts an INVITE with Replaces naming its early
// dialog, answers with PCMU and a 440 Hz tone, and CANCELs the call to the
// callee). baresip 1.0 cannot be picked up from.
type Caller struct {
	lines chan string
	all   *strings.Builder
	cmd   *exec.Cmd
}

// StartCaller calls user `to` through k as `user` (password userpw).
func (k *KamPresence) StartCaller(t testing.TB, user, to string) *Caller {
	t.Helper()
	script := filepath.Join(t.TempDir(), "caller.py")
	if err := os.WriteFile(script, []byte(pickupCaller), 0o755); err != nil {
		t.Fatal(err)
	}
	port := freeUDPRange(t, 3)
	cmd := exec.Command("python3", script, "--proxy", k.Addr(), "--user", user, "--password", user+"pw",
		"--to", to, "--port", itoa(port), "--rtp-port", itoa(port+2), "--timeout", "30")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &Caller{lines: make(chan string, 64), all: &strings.Builder{}, cmd: cmd}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			_ = cmd.Process.Kill()
		}
	})
	return c
}

// Await reads the caller's lines until one starts with prefix; it returns
// that line, or "" when the caller ended or timeout passed first.
func (c *Caller) Await(prefix string, timeout time.Duration) string {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				return ""
			}
			c.all.WriteString(l + "\n")
			if strings.HasPrefix(l, prefix) {
				return l
			}
		case <-t.C:
			return ""
		}
	}
}

// Output is every line read so far.
func (c *Caller) Output() string { return c.all.String() }
