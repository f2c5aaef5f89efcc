package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSecondPhoneOnOneHomeRefused starts a phone, then another on the same
// home folder (the login autostart plus a click on the launcher): the second
// says in words that the first runs and exits, touching nothing of the
// home (before homelock.go it started beside the first, sharing its outbox
// and settings.json). After the first is killed with SIGKILL, a new phone
// starts on that home: no lock outlives its process.
func TestSecondPhoneOnOneHomeRefused(t *testing.T) {
	home := t.TempDir()
	writeSettings(t, home, map[string]any{})
	first := startPhone(t, home, noKeyring)
	settingsBefore, err := os.ReadFile(filepath.Join(home, "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	dialKey, err := os.ReadFile(filepath.Join(home, "dial-key"))
	if err != nil {
		t.Fatal(err)
	}

	second := exec.Command(binary, "--home", home, "--no-browser")
	second.Env = append(os.Environ(), noKeyring...)
	second.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	pr, pw := io.Pipe()
	second.Stdout, second.Stderr = pw, pw
	if err := second.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { err := second.Wait(); pw.Close(); exited <- err }()
	var out strings.Builder
	served := make(chan struct{})
	read := make(chan struct{})
	go func() { // the second's words, until it exits; served once it prints a page
		defer close(read)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			out.WriteString(sc.Text() + "\n")
			if strings.Contains(sc.Text(), "Phone page:") {
				close(served)
			}
		}
	}()
	select {
	case err = <-exited:
		<-read
	case <-served:
		_ = second.Process.Kill()
		<-exited
		<-read
		t.Fatalf("a second phone started on the same home:\n%s", out.String())
	case <-time.After(15 * time.Second):
		_ = second.Process.Kill()
		<-exited
		<-read
		t.Fatalf("a second phone on the same home neither exited nor served within 15 s:\n%s", out.String())
	}
	if err == nil {
		t.Fatalf("the second phone exited 0:\n%s", out.String())
	}
	msg := out.String()
	for _, want := range []string{"another softphone is already running", home, "process " + strconv.Itoa(first.cmd.Process.Pid)} {
		if !strings.Contains(msg, want) {
			t.Errorf("the second phone's words lack %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "Phone page:") {
		t.Errorf("the second phone served a page:\n%s", msg)
	}
	if b, _ := os.ReadFile(filepath.Join(home, "dial-key")); string(b) != string(dialKey) {
		t.Error("the second phone replaced the first's dial-key")
	}
	if b, _ := os.ReadFile(filepath.Join(home, "settings.json")); string(b) != string(settingsBefore) {
		t.Error("the second phone rewrote settings.json")
	}
	if resp, err := http.Get(first.URL); err != nil {
		t.Errorf("the first phone no longer answers: %v\n%s", err, first.Output())
	} else {
		resp.Body.Close()
	}

	_ = first.cmd.Process.Kill() // SIGKILL: the lock must not outlive it
	<-first.done
	again := startPhone(t, home, noKeyring)
	again.stop(t)
}

// TestDialAfterKillSendsNothing: a phone killed with SIGKILL leaves its
// ui-url and dial-key; another program that takes its port afterwards is
// not sent the number and the key by a click on a tel: link (softphone
// dial): the command says the phone is not running. Before, it posted both
// to whatever listened there.
func TestDialAfterKillSendsNothing(t *testing.T) {
	home := t.TempDir()
	writeSettings(t, home, map[string]any{})
	p := startPhone(t, home, noKeyring)
	_ = p.cmd.Process.Kill()
	<-p.done
	origin, err := os.ReadFile(filepath.Join(home, "ui-url"))
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(strings.TrimSpace(string(origin)))
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	squatter := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		select {
		case got <- r.Form.Get("uri") + " key=" + r.Header.Get("X-Softphone-Dial-Key"):
		default:
		}
		w.WriteHeader(http.StatusCreated)
	}))
	ln, err := net.Listen("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	squatter.Listener = ln
	squatter.Start()
	defer squatter.Close()

	out, err := runCmd(t, "", noKeyring, "--home", home, "dial", "tel:+4930123456")
	select {
	case what := <-got:
		t.Errorf("the program on the dead phone's port was sent %s", what)
	default:
	}
	if err == nil || !strings.Contains(out, "the phone is not running") {
		t.Errorf("dial with no phone running: %v\n%s", err, out)
	}

	// With a phone running, dial still reaches it (the probe of the lock
	// does not keep a phone from starting, nor a dial from going on).
	squatter.Close()
	p = startPhone(t, home, noKeyring)
	out, _ = runCmd(t, "", noKeyring, "--home", home, "dial", "tel:+4930123456")
	if strings.Contains(out, "the phone is not running") {
		t.Errorf("dial with the phone running: %s", out)
	}
	p.stop(t)
}
