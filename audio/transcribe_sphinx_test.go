package audio

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/internal/testpeer"
)

// speak makes 16 kHz audio of text with espeak-ng (22.05 kHz, resampled
// here by linear interpolation).
func speak(t *testing.T, text string) []int16 {
	t.Helper()
	path := filepath.Join(t.TempDir(), "say.wav")
	if out, err := exec.Command("espeak-ng", "-v", "en-us", "-w", path, text).CombinedOutput(); err != nil {
		t.Fatalf("espeak-ng: %v %s", err, out)
	}
	rate, ch, err := readWAV(path)
	if err != nil {
		t.Fatal(err)
	}
	src := ch[0]
	n := len(src) * pcmRate / rate
	out := make([]int16, n)
	for i := range out {
		x := float64(i) * float64(rate) / pcmRate
		j := int(x)
		if j+1 >= len(src) {
			break
		}
		f := x - float64(j)
		out[i] = int16(float64(src[j])*(1-f) + float64(src[j+1])*f)
	}
	return out
}

// TestPocketsphinxTranscribesTheFarEnd: espeak-ng says a sentence into a
// G.722 call (from the far end), the call is recorded, pocketsphinx
// transcribes each channel: the words are on the remote speaker, with
// times, and the red-flag phrase is found. The recogniser runs with a small
// grammar: Debian's pocketsphinx 0.8 with its general language model does
// not recognise espeak-ng's voice reliably enough for an exact assertion.
func TestPocketsphinxTranscribesTheFarEnd(t *testing.T) {
	testpeer.Require(t, "pocketsphinx_continuous", "espeak-ng")
	if _, err := os.Stat("/usr/share/pocketsphinx/model/en-us/en-us"); err != nil {
		testpeer.Require(t, "pocketsphinx-en-us-model-missing")
	}
	const sentence = "i want to cancel my contract"
	speech := speak(t, sentence)

	home := t.TempDir()
	e, err := NewEngine(EngineConfig{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	call, err := e.NewSession(SessionConfig{CallID: "c"})
	if err != nil {
		t.Fatal(err)
	}
	defer call.Close()
	far, err := newTestEngine(t).NewSession(SessionConfig{CallID: "far"})
	if err != nil {
		t.Fatal(err)
	}
	defer far.Close()
	if err := far.Start(call.LocalAddr(), CodecG722, 101); err != nil {
		t.Fatal(err)
	}
	if err := call.Start(far.LocalAddr(), CodecG722, 101); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := call.StartRecording(ctx); err != nil {
		t.Fatal(err)
	}
	// Half a second of silence, the sentence in real time, half a second more.
	pad := make([]int16, pcmRate/2)
	audio := append(append(append([]int16{}, pad...), speech...), pad...)
	tk := time.NewTicker(frameMs * time.Millisecond)
	for i := 0; i+frameLen <= len(audio); i += frameLen {
		<-tk.C
		far.pushMic(audio[i : i+frameLen])
	}
	tk.Stop()
	for range 10 {
		far.pushMic(make([]int16, frameLen))
	}
	time.Sleep(300 * time.Millisecond) // let the last frames cross the call (no event to wait on)
	info, err := call.StopRecording(ctx)
	if err != nil {
		t.Fatal(err)
	}

	grammar := filepath.Join(t.TempDir(), "calls.gram")
	os.WriteFile(grammar, []byte("#JSGF V1.0;\ngrammar calls;\npublic <utt> = ( "+sentence+
		" | hello world | please call me back tomorrow | good morning | this is a test );\n"), 0o600)
	tctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	segs, err := TranscribeRecording(tctx, Pocketsphinx{Args: []string{"-jsgf", grammar}}, filepath.Join(home, info.Path))
	if err != nil {
		t.Fatal(err)
	}
	var remote []string
	for _, s := range segs {
		if s.Speaker != SpeakerRemote {
			t.Fatalf("segment on %s: %+v (this side said nothing)", s.Speaker, s)
		}
		if s.EndS <= s.StartS || s.StartS < 0.3 {
			t.Fatalf("segment times %+v (speech starts after half a second)", s)
		}
		remote = append(remote, s.Text)
	}
	if got := strings.Join(remote, " "); got != sentence {
		t.Fatalf("transcript %q, want %q (segments %+v)", got, sentence, segs)
	}
	if codes := MatchTriggers(segs, []Trigger{{Code: "churn", Phrases: []string{"cancel my contract"}}}); len(codes) != 1 {
		t.Fatalf("red flag not found in %+v", segs)
	}
}

// TestPocketsphinxOpenVocabularyRuns runs the general language model on
// speech and only checks that it answers with timed words: its accuracy on
// a synthetic voice is too low to assert the words.
func TestPocketsphinxOpenVocabularyRuns(t *testing.T) {
	testpeer.Require(t, "pocketsphinx_continuous", "espeak-ng")
	pad := make([]int16, pcmRate/2)
	speech := append(append(append([]int16{}, pad...), speak(t, "the quick brown fox jumps over the lazy dog")...), pad...)
	path := filepath.Join(t.TempDir(), "mono.wav")
	if err := writeMonoWAV(path, pcmRate, speech); err != nil {
		t.Fatal(err)
	}
	segs, err := Pocketsphinx{}.Transcribe(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) == 0 || segs[0].Text == "" || segs[len(segs)-1].EndS <= segs[0].StartS {
		t.Fatalf("no timed words: %+v", segs)
	}
}
