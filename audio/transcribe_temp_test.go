package audio

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/softphone/softphone/internal/testpeer"
)

// whereTranscriber notes the folder of each file it is given and whether
// the file was there.
type whereTranscriber struct {
	mu   sync.Mutex
	dirs []string
}

func (w *whereTranscriber) Transcribe(ctx context.Context, wavPath string) ([]Segment, error) {
	if _, err := os.Stat(wavPath); err != nil {
		return nil, err
	}
	w.mu.Lock()
	w.dirs = append(w.dirs, filepath.Dir(wavPath))
	w.mu.Unlock()
	return []Segment{{EndS: 1, Text: "heard"}}, nil
}

// loudStereo writes a recording-like stereo file of n frames, both
// channels loud, at path.
func loudStereo(t *testing.T, path string, n int) {
	t.Helper()
	w, err := createWAV(path, pcmRate, 2)
	if err != nil {
		t.Fatal(err)
	}
	st := make([]int16, 2*n)
	for i := range st {
		st[i] = int16(4000 * ((i/32)%2*2 - 1))
	}
	if err := w.write(st); err != nil {
		t.Fatal(err)
	}
	if _, err := w.close(); err != nil {
		t.Fatal(err)
	}
}

// TestTranscriptCopiesBesideTheRecording: the channels' copies the
// recogniser reads are written in a folder of their own beside the
// recording (the phone's recordings folder), not in os.TempDir() (a tmpfs
// in RAM on many systems, or a /tmp shared with other users), and are gone
// when the transcript is done.
func TestTranscriptCopiesBesideTheRecording(t *testing.T) {
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "not-here")) // os.TempDir(): a copy there fails
	recs := filepath.Join(t.TempDir(), "recordings")
	if err := os.Mkdir(recs, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(recs, "call.wav")
	loudStereo(t, path, pcmRate)
	wt := &whereTranscriber{}
	segs, err := TranscribeRecording(context.Background(), wt, path)
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) != 2 || len(wt.dirs) != 2 {
		t.Fatalf("segments %+v, files in %v", segs, wt.dirs)
	}
	for _, d := range wt.dirs {
		if filepath.Dir(d) != recs || !strings.HasPrefix(filepath.Base(d), transcriptTempPrefix) {
			t.Errorf("a channel's copy was in %s, not in a transcript's folder in %s", d, recs)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(recs, ".*")); len(left) != 0 {
		t.Errorf("left after the transcript: %v", left)
	}
}

// TestSqueezedCopyBesideTheChannel: pocketsphinx's squeezed copy of a
// channel is written beside the channel's file (in the transcript's
// folder), not in os.TempDir().
func TestSqueezedCopyBesideTheChannel(t *testing.T) {
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "not-here"))
	dir := t.TempDir()
	mono := filepath.Join(dir, "remote.wav")
	w, err := createWAV(mono, pcmRate, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.write(make([]int16, 3*pcmRate)); err != nil {
		t.Fatal(err)
	}
	if _, err := w.close(); err != nil {
		t.Fatal(err)
	}
	_, path, cleanup, err := squeezeFile(mono)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(filepath.Dir(path)) != dir {
		t.Errorf("squeezed copy at %s, not beside %s", path, mono)
	}
	cleanup()
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) != 0 {
		t.Errorf("left after the cleanup: %v", left)
	}
}

// TestTranscriptFullDiskSaysSo: with no room beside the recording for the
// channels' copies (a 1 MiB tmpfs holding a 0.6 MB recording, in a private
// mount namespace) and the free space not known beforehand, the transcript
// fails at once with an error that says the disk is full, and leaves no
// part of its copies behind.
func TestTranscriptFullDiskSaysSo(t *testing.T) {
	dir, inside := testpeer.OnSmallTmpfs(t, "1m")
	if !inside {
		return
	}
	recs := filepath.Join(dir, "recordings")
	if err := os.Mkdir(recs, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(recs, "call.wav")
	loudStereo(t, path, 150000) // 600 kB: the copies need as much again
	// Where the free space is not known (freeSpace, not Linux or macOS),
	// the copies are written until the disk refuses one.
	diskFree = func(string) (int64, bool) { return 0, false }
	defer func() { diskFree = freeSpace }()
	wt := &whereTranscriber{}
	_, err := TranscribeRecording(context.Background(), wt, path)
	if !errors.Is(err, ErrTranscribe) || !strings.Contains(err.Error(), "disk of the recordings is full") {
		t.Fatalf("error %v", err)
	}
	if len(wt.dirs) != 0 {
		t.Errorf("the recogniser was given %v", wt.dirs)
	}
	if left, _ := filepath.Glob(filepath.Join(recs, ".*")); len(left) != 0 {
		t.Errorf("left after the failure: %v", left)
	}
}

// TestTranscriptLeftoversRemoved: the folders of transcripts a kill cut
// short are removed; recordings and other files stay.
func TestTranscriptLeftoversRemoved(t *testing.T) {
	recs := t.TempDir()
	left := filepath.Join(recs, transcriptTempPrefix+"123", ".sphinx-4")
	if err := os.MkdirAll(left, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{filepath.Join(filepath.Dir(left), "local.wav"), filepath.Join(left, "squeezed.wav"), filepath.Join(recs, "a.wav")} {
		if err := os.WriteFile(f, []byte("RIFF"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if n := RemoveTranscriptLeftovers(recs); n != 1 {
		t.Errorf("removed %d", n)
	}
	if m, _ := filepath.Glob(filepath.Join(recs, "*")); len(m) != 1 || filepath.Base(m[0]) != "a.wav" {
		t.Errorf("after: %v", m)
	}
	if m, _ := filepath.Glob(filepath.Join(recs, ".*")); len(m) != 0 {
		t.Errorf("after: %v", m)
	}
}

// TestTranscribeFIFORefused: a FIFO in a recording's place (left from
// before) is refused at once; opening it waited for a writer for ever, and
// the transcript runner with it (every later recording's transcript).
func TestTranscribeFIFORefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "call.wav")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skip(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := TranscribeRecording(context.Background(), &whereTranscriber{}, path)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrTranscribe) || !strings.Contains(err.Error(), "not a file") {
			t.Fatalf("error %v", err)
		}
	case <-time.After(5 * time.Second):
		// Let the stuck open end so the test binary can exit.
		if f, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		t.Fatal("the transcript waits on the FIFO")
	}
}

// TestTranscriptLeavesRoomForCalls: a transcript whose copies would leave
// less than transcriptKeep free on the recordings' disk is refused before
// it writes anything, saying the disk is full: the copies (the recording's
// audio once more) must not take the space a call's recording writes into
// (it stops when the disk is full). A 66 MiB tmpfs in a private mount
// namespace, a 2 MB recording: the copies would fit, with less than 64 MiB
// left.
func TestTranscriptLeavesRoomForCalls(t *testing.T) {
	dir, inside := testpeer.OnSmallTmpfs(t, "66m")
	if !inside {
		return
	}
	recs := filepath.Join(dir, "recordings")
	if err := os.Mkdir(recs, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(recs, "call.wav")
	loudStereo(t, path, 500000)
	before, _ := freeSpace(recs)
	wt := &whereTranscriber{}
	_, err := TranscribeRecording(context.Background(), wt, path)
	if !errors.Is(err, ErrTranscribe) || !strings.Contains(err.Error(), "disk of the recordings is full") {
		t.Fatalf("error %v (%d MB free)", err, before>>20)
	}
	if after, _ := freeSpace(recs); after != before || len(wt.dirs) != 0 {
		t.Errorf("free %d bytes before, %d after; the recogniser was given %v", before, after, wt.dirs)
	}
	t.Log(err)
}
