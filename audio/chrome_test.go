//go:build browser

package audio

import (
	"context"
	_ "embed"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/internal/testpeer"
)

//go:embed testdata/chrome_call.html
var chromePage []byte

// TestChromeThroughBridge is the real browser against Bridge (build tag
// browser; run inside unshare -n): Debian's headless chromium with a 440 Hz
// fake microphone makes the offer, for each codec first in our priority.
// The far end (a session of its own engine playing 1000 Hz) hears 440 Hz,
// the page measures 1000 Hz, and both sides used the codec (pass-through).
func TestChromeThroughBridge(t *testing.T) {
	testpeer.Require(t, "chromium")
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
		c := tc.c
		t.Run(tc.name, func(t *testing.T) {
			e, err := NewEngine(EngineConfig{Home: t.TempDir(), Codecs: []string{tc.prio, "PCMU", "PCMA", "G722", "opus"}})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			_, _, farHeard := startCall(t, e, c, 1000, nil)

			type result struct {
				State, Error, CodecIn, CodecOut string
				Hz, Level                       float64
			}
			results := make(chan result, 1)
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
				var res result
				json.NewDecoder(r.Body).Decode(&res)
				results <- res
			})
			srv := httptest.NewServer(mux)
			defer srv.Close()

			mic := filepath.Join(t.TempDir(), "mic.wav")
			var ph float64
			if err := writeMonoWAV(mic, pcmRate, tone(440, pcmRate, 10*pcmRate, &ph)); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, "chromium", "--headless", "--no-sandbox", "--disable-gpu",
				"--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
				"--use-file-for-fake-audio-capture="+mic, "--allow-loopback-in-peer-connection",
				"--autoplay-policy=no-user-gesture-required", "--user-data-dir="+t.TempDir(),
				"--no-first-run", "--disable-background-networking", srv.URL)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { cmd.Process.Kill(); cmd.Wait() }()

			var res result
			select {
			case res = <-results:
			case <-ctx.Done():
				t.Fatal("the page reported nothing")
			}
			t.Logf("page: %+v", res)
			if res.Error != "" || res.State != "connected" {
				t.Fatalf("page: %+v", res)
			}
			if math.Abs(res.Hz-1000) > 15 {
				t.Fatalf("the page heard %.0f Hz, want 1000", res.Hz)
			}
			if !strings.EqualFold(res.CodecIn, "audio/"+tc.in) || !strings.EqualFold(res.CodecOut, "audio/"+tc.out) {
				t.Fatalf("codecs in %s out %s, want %s and %s", res.CodecIn, res.CodecOut, tc.in, tc.out)
			}
			farHeard.take(t, pcmRate/4)
			assertTone(t, "the far end hears the page", farHeard.take(t, pcmRate/2), pcmRate, 440)
			if e.Bridge().passedDown.Load() == 0 || (e.Bridge().passedUp.Load() > 0) != tc.passedUp {
				t.Fatalf("not passed through: down %d up %d", e.Bridge().passedDown.Load(), e.Bridge().passedUp.Load())
			}
		})
	}
}
