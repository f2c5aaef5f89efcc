package audio

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/internal/testpeer"
)

// The voice the speech tests use: espeak-ng's Klatt formant voice. Debian
// 12's pocketsphinx 0.8 with its open-vocabulary en-us model gets its words
// ("i want to cancel my contract" word for word); with espeak-ng's default
// voice it hears "i want to do so are you took it".
var speakArgs = []string{"-v", "en-us+klatt", "-s", "150"}

// requireSphinx skips (or fails with CI=true) without pocketsphinx, its
// en-us model or espeak-ng (scripts/install-test-deps.sh installs them).
func requireSphinx(t *testing.T) {
	t.Helper()
	testpeer.Require(t, "pocketsphinx_continuous", "espeak-ng")
	if _, err := os.Stat("/usr/share/pocketsphinx/model/en-us/en-us"); err != nil {
		testpeer.Require(t, "pocketsphinx-en-us-model-missing")
	}
}

// speak makes 16 kHz audio of text with espeak-ng: its 22.05 kHz output,
// resampled through a windowed-sinc low-pass at 7.2 kHz (plain interpolation
// would fold its 8-11 kHz into the band the recogniser listens to).
func speak(t *testing.T, text string) []int16 {
	t.Helper()
	path := filepath.Join(t.TempDir(), "say.wav")
	args := append(append([]string{}, speakArgs...), "-w", path, text)
	if out, err := exec.Command("espeak-ng", args...).CombinedOutput(); err != nil {
		t.Fatalf("espeak-ng: %v %s", err, out)
	}
	rate, ch, err := readWAV(path)
	if err != nil {
		t.Fatal(err)
	}
	src := ch[0]
	step := float64(rate) / pcmRate
	fc := 0.45 * pcmRate / float64(rate) // cut-off, in cycles per source sample
	const half = 16
	out := make([]int16, int(float64(len(src))/step))
	for i := range out {
		x := float64(i) * step
		var s float64
		for j := int(x) - half; j <= int(x)+half; j++ {
			if j < 0 || j >= len(src) {
				continue
			}
			d := x - float64(j)
			h := 2 * fc
			if d != 0 {
				h = math.Sin(2*math.Pi*fc*d) / (math.Pi * d)
			}
			s += float64(src[j]) * h * (0.5 + 0.5*math.Cos(math.Pi*d/(half+1)))
		}
		out[i] = int16(max(-32768, min(32767, s)))
	}
	return out
}

// codecRoundTrip writes the stereo recording a call with codec would leave
// (left: local, right: remote), each channel encoded and decoded frame by
// frame with the phone's own codecs. It runs as fast as it can: a call in
// real time made this test depend on the machine's load (a late 20 ms tick
// leaves a gap in the recording, and the recogniser hears other words); the
// call path itself is the e2e suite's (audio.mjs, 'transcript pocketsphinx').
func codecRoundTrip(t *testing.T, codec Codec, local, remote []int16) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "call.wav")
	w, err := createWAV(path, pcmRate, 2)
	if err != nil {
		t.Fatal(err)
	}
	var chans [2][]int16
	for k, src := range [][]int16{local, remote} {
		enc, err := newEncoder(withDefaults(codec))
		if err != nil {
			t.Fatal(err)
		}
		dec, err := newDecoder(withDefaults(codec))
		if err != nil {
			t.Fatal(err)
		}
		payload, pcm := make([]byte, 1500), make([]int16, maxFrame)
		for i := 0; i+frameLen <= len(src); i += frameLen {
			n, err := enc.encode(src[i:i+frameLen], payload)
			if err != nil {
				t.Fatal(err)
			}
			m, err := dec.decode(payload[:n], pcm)
			if err != nil || m != frameLen {
				t.Fatalf("%s: decoded %d samples, %v", codec.Name, m, err)
			}
			chans[k] = append(chans[k], pcm[:m]...)
		}
	}
	st := make([]int16, 2*len(chans[0]))
	for i := range chans[0] {
		st[2*i], st[2*i+1] = chans[0][i], chans[1][i]
	}
	if err := w.write(st); err != nil {
		t.Fatal(err)
	}
	if _, err := w.close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestPocketsphinxTranscribesACall: this side says one sentence, then the
// far end says another, each through one of the call's codecs; the recording
// goes through the product's pocketsphinx path (open vocabulary, no
// grammar). Each side's words are on its own speaker, at the time it spoke,
// and the far end's red-flag phrase flags the call. Narrowband calls
// (G.711) are transcribed worse by the wideband en-us model: only the word
// it gets there is asserted. The input is the same in every run (no real
// time, see codecRoundTrip), so is what pocketsphinx hears.
func TestPocketsphinxTranscribesACall(t *testing.T) {
	requireSphinx(t)
	mine := speak(t, "hello this is the help desk") // wideband: heard as "hello this is a ..."
	theirs := speak(t, "i want to cancel my contract. please call me back tomorrow morning.")
	pad := make([]int16, pcmRate/2)
	// Local: half a second, its sentence, then silence. Remote: silence until
	// half a second after the local sentence, its sentence, then a second of
	// silence (which also carries its last words across the call).
	remoteAt := float64(len(pad)+len(mine)+len(pad)) / pcmRate
	remote := append(append(append(make([]int16, len(pad)+len(mine)+len(pad)), theirs...), make([]int16, pcmRate)...), make([]int16, frameLen)...)
	local := append(append(append([]int16{}, pad...), mine...), make([]int16, len(remote))...)[:len(remote)]
	triggers := []Trigger{{Code: "cancellation", Phrases: []string{"cancel my subscription", "cancel my contract"}}}

	for _, tc := range []struct {
		codec      Codec
		localSaid  []string // what this side's side must hold
		remoteSaid []string // what the far end's side must hold
		flagged    bool
	}{
		{CodecG722, []string{"hello this is"}, []string{"cancel my contract", "tomorrow"}, true},
		{CodecOpus, []string{"hello this is"}, []string{"cancel my contract", "tomorrow"}, true},
		{CodecPCMU, nil, []string{"tomorrow"}, false},
	} {
		t.Run(tc.codec.Name, func(t *testing.T) {
			path := codecRoundTrip(t, tc.codec, local, remote)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			segs, err := TranscribeRecording(ctx, Pocketsphinx{}, path)
			if err != nil {
				t.Fatal(err)
			}
			said := map[string]string{}
			for _, s := range segs {
				if s.EndS <= s.StartS {
					t.Errorf("segment without a duration: %+v", s)
				}
				switch s.Speaker {
				case SpeakerLocal:
					if s.StartS < 0.3 || s.StartS > remoteAt {
						t.Errorf("this side's segment at %.2f s, it spoke from 0.5 to %.2f s: %+v", s.StartS, remoteAt-0.5, s)
					}
				case SpeakerRemote:
					if s.StartS < remoteAt-0.3 {
						t.Errorf("far end's segment at %.2f s, it spoke from %.2f s: %+v", s.StartS, remoteAt, s)
					}
				default:
					t.Errorf("segment of speaker %q: %+v", s.Speaker, s)
				}
				said[s.Speaker] += " " + s.Text
			}
			t.Logf("%s: this side %q, far end %q", tc.codec.Name, said[SpeakerLocal], said[SpeakerRemote])
			for _, w := range tc.localSaid {
				if !strings.Contains(said[SpeakerLocal], w) {
					t.Errorf("this side's words %q lack %q", said[SpeakerLocal], w)
				}
			}
			for _, w := range tc.remoteSaid {
				if !strings.Contains(said[SpeakerRemote], w) {
					t.Errorf("far end's words %q lack %q", said[SpeakerRemote], w)
				}
				if strings.Contains(said[SpeakerLocal], w) {
					t.Errorf("this side's words %q hold the far end's %q", said[SpeakerLocal], w)
				}
			}
			if strings.Contains(said[SpeakerRemote], "hello this is") {
				t.Errorf("far end's words %q hold this side's %q", said[SpeakerRemote], "hello this is")
			}
			if codes := MatchTriggers(segs, triggers); tc.flagged && (len(codes) != 1 || codes[0] != "cancellation") {
				t.Errorf("red flag not found: %v in %+v", codes, segs)
			}
		})
	}
}

// TestSqueezeSilence: quiet stretches longer than 0.4 s shrink to 200 ms at
// each edge, shorter ones stay, and times map back to the original.
func TestSqueezeSilence(t *testing.T) {
	loud := func(n int) []int16 {
		x := make([]int16, n)
		for i := range x {
			x[i] = 1000
		}
		return x
	}
	sec := pcmRate
	// 3 s quiet, 1 s sound, 0.4 s quiet, 1 s sound, 2 s quiet.
	in := append(append(append(append(make([]int16, 3*sec), loud(sec)...), make([]int16, 2*sec/5)...), loud(sec)...), make([]int16, 2*sec)...)
	sq := squeezeSilence(in, pcmRate)
	if want := 2*sec/5 + sec + 2*sec/5 + sec + 2*sec/5; len(sq.pcm) != want {
		t.Fatalf("squeezed to %d samples, want %d (cuts %+v)", len(sq.pcm), want, sq.cuts)
	}
	for _, c := range []struct{ squeezed, original float64 }{
		{0.1, 0.1}, {0.3, 2.9}, {0.4, 3}, {1.2, 3.8}, {2.2, 4.8}, {2.9, 5.5}, {3.1, 7.3},
	} {
		if got := sq.original(c.squeezed); got < c.original-1e-9 || got > c.original+1e-9 {
			t.Errorf("original(%.1f) = %.3f, want %.1f", c.squeezed, got, c.original)
		}
	}
	for i, v := range sq.pcm[2*sec/5 : 2*sec/5+sec] {
		if v != 1000 {
			t.Fatalf("sound changed at %d: %d", i, v)
		}
	}
}
