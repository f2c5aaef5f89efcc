package testpeer

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestToneAnalysis(t *testing.T) {
	p := filepath.Join(t.TempDir(), "t.wav")
	if err := WriteTone(p, 440, 8000, 2); err != nil {
		t.Fatal(err)
	}
	tone, err := AnalyseFile(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	if tone.Hz < 430 || tone.Hz > 450 || tone.RMS < 0.2 {
		t.Fatalf("got %+v", tone)
	}
}

func TestKeyringStoresAndLooksUp(t *testing.T) {
	WithKeyring(t)
	Require(t, "secret-tool")
	st := exec.Command("secret-tool", "store", "--label=t", "service", "testpeer", "key", "k")
	st.Stdin = strings.NewReader("s3cret")
	if out, err := st.CombinedOutput(); err != nil {
		t.Fatalf("store: %v %s", err, out)
	}
	out, err := exec.Command("secret-tool", "lookup", "service", "testpeer", "key", "k").Output()
	if err != nil || string(out) != "s3cret" {
		t.Fatalf("lookup: %q %v", out, err)
	}
}

func TestKamailioAndBaresipCall(t *testing.T) {
	k := Kamailio(t)
	alice := StartBaresip(t, BaresipOpts{User: "alice", Pass: "alicepw", Registrar: k.Addr(), Tone: 440, AutoAnswer: true})
	bob := StartBaresip(t, BaresipOpts{User: "bob", Pass: "bobpw", Registrar: k.Addr(), Tone: 1000, AutoAnswer: true})
	if n := k.Registered(); n != 2 {
		t.Fatalf("kamailio holds %d registrations", n)
	}
	if _, err := alice.Ctrl("dial", "sip:bob@"+k.Addr()); err != nil {
		t.Fatal(err)
	}
	if !bob.WaitLog("Call established", 10*time.Second) {
		t.Fatalf("no call:\n%s", bob.Log())
	}
	// Let two seconds of audio flow: the tone is what we measure.
	time.Sleep(2 * time.Second)
	if _, err := alice.Ctrl("hangup"); err != nil {
		t.Fatal(err)
	}
	if !WaitFor(5*time.Second, func() bool { return len(bob.Recordings()) > 0 && len(alice.Recordings()) > 0 }) {
		t.Fatal("no recordings")
	}
	if !bob.WaitLog("terminated", 5*time.Second) {
		t.Fatalf("bob saw no end of call:\n%s", bob.Log())
	}
	heard, err := AnalyseFile(bob.Recordings()[0], 0)
	if err != nil {
		t.Fatal(err)
	}
	if heard.Hz < 430 || heard.Hz > 450 {
		t.Fatalf("bob heard %+v, want 440 Hz", heard)
	}
}

// TestG711Decode: a u-law tone made here decodes back to its frequency.
func TestG711Decode(t *testing.T) {
	u := ulawTone(440, 1)
	if tone := G711Tone([][]byte{u}, false); tone.Hz < 430 || tone.Hz > 450 || tone.RMS < 0.3 {
		t.Fatalf("u-law 440 Hz decoded as %+v", tone)
	}
}
