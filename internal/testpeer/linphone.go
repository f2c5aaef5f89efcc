package testpeer

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// LinphoneOpts configure a headless linphonec (Debian's linphone-cli).
type LinphoneOpts struct {
	User, Pass string  // registers sip:User@127.0.0.1 at Registrar with Pass
	Registrar  string  // host:port (kamailio)
	Tone       float64 // Hz it plays as its microphone; 0 = 440
	// SRTP makes it offer and require SDES (rc [sip] media_encryption=srtp,
	// media_encryption_mandatory=1).
	SRTP bool
}

// Linphone is a running linphonec, driven on its stdin. It plays a tone as
// its microphone and records what it hears to Rec (soundcard "files").
type Linphone struct {
	Dir, Rec string
	Port     int
	mu       sync.Mutex
	in       io.WriteCloser
}

// StartLinphone starts linphonec for the test; it is stopped when the
// test ends. linphonec's core only starts (and opens its SIP socket) when
// $HOME/.local/share/linphone exists (the harness lessons), so HOME is a
// folder of the test's own.
func StartLinphone(t testing.TB, o LinphoneOpts) *Linphone {
	t.Helper()
	Require(t, "linphonec")
	if o.Tone == 0 {
		o.Tone = 440
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".local", "share", "linphone"), 0o755); err != nil {
		t.Fatal(err)
	}
	tone := filepath.Join(dir, "tone.wav")
	if err := WriteTone(tone, o.Tone, 8000, 60); err != nil {
		t.Fatal(err)
	}
	sip, rtp := FreeUDPPort(t), freeUDPRange(t, 2)
	enc := ""
	if o.SRTP {
		enc = "media_encryption=srtp\nmedia_encryption_mandatory=1\n"
	}
	rc := fmt.Sprintf("[sip]\nsip_port=%d\nsip_tcp_port=0\nsip_tls_port=0\nbind_address=127.0.0.1\nsupported=replaces\n%s"+
		"[rtp]\naudio_rtp_port=%d\n[sound]\nechocancellation=0\n[video]\nenabled=0\ndisplay=0\ncapture=0\n", sip, enc, rtp)
	if err := os.WriteFile(filepath.Join(dir, "rc"), []byte(rc), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("linphonec", "-c", filepath.Join(dir, "rc"), "-d", "3", "-l", filepath.Join(dir, "lin.log"))
	cmd.Env = append(os.Environ(), "HOME="+dir)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	l := &Linphone{Dir: dir, Rec: filepath.Join(dir, "rec.wav"), Port: sip, in: in}
	start(t, cmd, filepath.Join(dir, "out.log"))
	t.Cleanup(func() { _ = in.Close() })
	if !WaitFor(15*time.Second, func() bool { return Listening("udp", sip) }) {
		t.Fatalf("linphonec did not open its SIP port %d:\n%s", sip, l.Log())
	}
	for _, c := range []string{"soundcard use files", "play " + tone, "record " + l.Rec, "autoanswer enable"} {
		l.Cmd(c)
	}
	if o.Pass != "" {
		l.Cmd(fmt.Sprintf("register sip:%s@127.0.0.1 sip:%s %s", o.User, o.Registrar, o.Pass))
		// (its stdout is a file, written when it exits: read its log)
		if !WaitFor(10*time.Second, func() bool { return fileContains(filepath.Join(dir, "lin.log"), "to [LinphoneRegistrationOk]") }) {
			var lines []string
			for _, s := range strings.Split(l.Log(), "\n") {
				if strings.Contains(s, "egistration") {
					lines = append(lines, s)
				}
			}
			t.Fatalf("linphonec did not register at %s:\n%s", o.Registrar, strings.Join(lines, "\n"))
		}
	}
	return l
}

// Cmd writes one command line to linphonec.
func (l *Linphone) Cmd(c string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = io.WriteString(l.in, c+"\n")
}

// Log is what linphonec printed, then its own log file.
func (l *Linphone) Log() string {
	a, _ := os.ReadFile(filepath.Join(l.Dir, "out.log"))
	b, _ := os.ReadFile(filepath.Join(l.Dir, "lin.log"))
	return string(a) + "\n--- lin.log\n" + string(b)
}

// WaitOutput waits until linphonec's output holds s.
func (l *Linphone) WaitOutput(s string, timeout time.Duration) bool {
	return WaitFor(timeout, func() bool { return fileContains(filepath.Join(l.Dir, "out.log"), s) })
}
