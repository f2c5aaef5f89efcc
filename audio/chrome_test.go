//go:build browser

package audio

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pion/rtp"
	"github.com/softphone/softphone/internal/testpeer"
)

//go:embed testdata/chrome_call.html
var chromePage []byte

type chromeResult struct {
	State, Error, CodecIn, CodecOut string
	Hz, Level                       float64
}

// runChrome opens the page in Debian's headless chromium (440 Hz fake
// microphone), answers its offer with e's bridge and returns what the page
// reports after 3 s of call. Chromium runs until the test ends.
func runChrome(t *testing.T, e *Engine) chromeResult {
	t.Helper()
	testpeer.Require(t, "chromium")
	results := make(chan chromeResult, 1)
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { w.Write(chromePage) })
	mux.HandleFunc("/offer", func(w http.ResponseWriter, r *http.Request) {
		offer, _ := io.ReadAll(r.Body)
		answer, err := e.Bridge().Offer(r.Context(), "chrome", string(offer))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		io.WriteString(w, answer)
	})
	mux.HandleFunc("/result", func(w http.ResponseWriter, r *http.Request) {
		var res chromeResult
		json.NewDecoder(r.Body).Decode(&res)
		results <- res
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	mic := filepath.Join(t.TempDir(), "mic.wav")
	var ph float64
	if err := writeMonoWAV(mic, pcmRate, tone(440, pcmRate, 10*pcmRate, &ph)); err != nil {
		t.Fatal(err)
	}
	// Chromium's helper processes may still write to the profile after the
	// browser is killed: run it in its own process group, kill the group, and
	// remove the profile ourselves.
	profile, err := os.MkdirTemp("", "chrome-profile-")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	cmd := exec.CommandContext(ctx, "chromium", "--headless", "--no-sandbox", "--disable-gpu",
		"--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
		"--use-file-for-fake-audio-capture="+mic, "--allow-loopback-in-peer-connection",
		"--user-data-dir="+profile,
		"--no-first-run", "--disable-background-networking", srv.URL)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		cancel()
		_ = os.RemoveAll(profile)
	})
	select {
	case res := <-results:
		t.Logf("page: %+v", res)
		if res.Error != "" || res.State != "connected" {
			t.Fatalf("page: %+v", res)
		}
		return res
	case <-ctx.Done():
		t.Fatal("the page reported nothing")
	}
	return chromeResult{}
}

// TestChromeThroughBridge is the real browser against Bridge (build tag
// browser; run inside unshare -n): Debian's headless chromium makes the
// offer. The far end (a session of its own engine playing 1000 Hz) hears
// the page's 440 Hz, the page measures 1000 Hz, and packets pass through.
func TestChromeThroughBridge(t *testing.T) {
	cases := []struct {
		name     string
		c        Codec  // the call's
		prio     string // first codec toward the tab
		in, out  string // what the page receives and sends
		passedUp bool
	}{
		{"PCMU", CodecPCMU, "PCMU", "PCMU", "PCMU", true},
		{"PCMA", CodecPCMA, "PCMA", "PCMA", "PCMA", true},
		{"G722", CodecG722, "G722", "G722", "G722", true},
		{"opus", CodecOpus, "opus", "opus", "opus", true},
		// The page sends PCMU (our first codec); the call is G.722: the
		// tab's stream follows the call's codec without renegotiation.
		{"PCMU-page-G722-call", CodecG722, "PCMU", "G722", "PCMU", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e, err := NewEngine(EngineConfig{Home: t.TempDir(), Codecs: []string{tc.prio, "PCMU", "PCMA", "G722", "opus"}})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			_, _, farHeard := startCall(t, e, tc.c, 1000, nil)
			res := runChrome(t, e)
			if math.Abs(res.Hz-1000) > 15 {
				t.Fatalf("the page heard %.0f Hz, want 1000", res.Hz)
			}
			if !strings.EqualFold(res.CodecIn, "audio/"+tc.in) || !strings.EqualFold(res.CodecOut, "audio/"+tc.out) {
				t.Fatalf("codecs in %s out %s, want %s and %s", res.CodecIn, res.CodecOut, tc.in, tc.out)
			}
			farHeard.take(t, pcmRate/4)
			assertTone(t, "the far end hears the page", farHeard.take(t, pcmRate/2), pcmRate, 440)
			b := e.Bridge()
			if b.passedDown.Load() == 0 || (b.passedUp.Load() > 0) != tc.passedUp {
				t.Fatalf("pass-through down %d up %d", b.passedDown.Load(), b.passedUp.Load())
			}
			if b.fastIn.Load() < 20 || b.fastOut.Load() < 20 {
				t.Fatalf("fast path carried %d packets from the page, %d to it", b.fastIn.Load(), b.fastOut.Load())
			}
		})
	}
}

// TestChromeCallCPU logs this process's CPU for one PCMU call bridged to
// the real browser. The PBX is another process (this test binary as
// TestHelperPBX) sending 50 packets/s and reading ours, so only the phone's
// side is counted, for comparison with baresip on the same machine.
func TestChromeCallCPU(t *testing.T) {
	e, err := NewEngine(EngineConfig{Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	s, err := e.NewSession(SessionConfig{CallID: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	port := testpeer.FreeUDPPort(t)
	pbx := exec.Command(os.Args[0], "-test.run=^TestHelperPBX$")
	pbx.Env = append(os.Environ(), "AUDIO_HELPER_PBX="+strconv.Itoa(port)+","+strconv.Itoa(s.LocalAddr().Port))
	if err := pbx.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { pbx.Process.Kill(); pbx.Wait() }()
	s.Start(&net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port}, CodecPCMU, 101)
	runChrome(t, e)
	cpu := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	b := e.Bridge()
	d0, u0 := b.passedDown.Load(), b.passedUp.Load()
	c0, w0 := cpu(), time.Now()
	time.Sleep(10 * time.Second) // the measured stretch of call
	used, wall := cpu()-c0, time.Since(w0)
	down, up := b.passedDown.Load()-d0, b.passedUp.Load()-u0
	t.Logf("one bridged PCMU call: %.2f%% of one core (this process, %v); passed down %d up %d",
		100*used.Seconds()/wall.Seconds(), wall.Round(time.Millisecond), down, up)
	if up < 400 || down < 400 {
		t.Fatalf("the call did not flow: down %d up %d", down, up)
	}
}

// TestHelperPBX is the PBX of TestChromeCallCPU in a process of its own:
// PCMU silence at 50 packets/s from port A to port B, reading what comes.
func TestHelperPBX(t *testing.T) {
	spec := os.Getenv("AUDIO_HELPER_PBX")
	if spec == "" {
		t.Skip("helper process only")
	}
	var from, to int
	fmt.Sscanf(spec, "%d,%d", &from, &to)
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: from})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		buf := make([]byte, 1500)
		for {
			if _, _, err := conn.ReadFromUDP(buf); err != nil {
				return
			}
		}
	}()
	dst := &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: to}
	payload := make([]byte, 160)
	tk := time.NewTicker(20 * time.Millisecond)
	for j := 0; j < 50*60; j++ {
		<-tk.C
		p := rtp.Packet{Header: rtp.Header{Version: 2, SequenceNumber: uint16(j), Timestamp: uint32(j * 160), SSRC: 7}, Payload: payload}
		raw, _ := p.Marshal()
		conn.WriteToUDP(raw, dst)
	}
}
