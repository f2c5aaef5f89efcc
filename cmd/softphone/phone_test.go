package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// binary is the softphone built once for the black-box tests of this package.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "softphone-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "softphone")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// proc is a running phone.
type proc struct {
	cmd  *exec.Cmd
	URL  string // the printed phone page URL
	mu   sync.Mutex
	out  bytes.Buffer
	done chan struct{}
	err  error
}

// Output is everything the phone printed so far (stdout and stderr).
func (p *proc) Output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

var pageLine = regexp.MustCompile(`Phone page: (http://127\.0\.0\.1:\d+/\S*)`)

// startPhone runs the binary with --home home and waits for its page line.
func startPhone(t *testing.T, home string, env []string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"--home", home, "--no-browser"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	return startProc(t, cmd)
}

// startProc starts cmd (the binary, maybe under a wrapper such as prlimit)
// and waits for its page line.
func startProc(t *testing.T, cmd *exec.Cmd) *proc {
	t.Helper()
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	p := &proc{cmd: cmd, done: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			p.mu.Lock()
			p.out.WriteString(line + "\n")
			p.mu.Unlock()
			if m := pageLine.FindStringSubmatch(line); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
	}()
	go func() { p.err = cmd.Wait(); pw.Close(); close(p.done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.done
	})
	select {
	case p.URL = <-found:
	case <-p.done:
		t.Fatalf("phone exited before printing its page: %v\n%s", p.err, p.Output())
	case <-time.After(20 * time.Second):
		t.Fatalf("no page line within 20 s:\n%s", p.Output())
	}
	return p
}

// stop sends SIGTERM and waits for a clean exit.
func (p *proc) stop(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		t.Fatalf("phone did not stop within 20 s of SIGTERM:\n%s", p.Output())
	}
	if p.err != nil {
		t.Fatalf("phone exited with %v:\n%s", p.err, p.Output())
	}
}

// runCmd runs the binary to completion and returns its combined output.
func runCmd(t *testing.T, stdin string, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	return string(out), err
}
