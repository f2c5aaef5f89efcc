package sipua

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/softphone/softphone/audio"
	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// doneDB is the real store, telling each transcript saved done.
type doneDB struct {
	*store.DB
	done chan string
}

func (d doneDB) SaveTranscript(ctx context.Context, t store.Transcript) error {
	err := d.DB.SaveTranscript(ctx, t)
	if err == nil && t.Status == "done" {
		d.done <- t.RecordingID
	}
	return err
}

// recordingsFor makes n recordings of one short mono WAV under home.
func recordingsFor(t *testing.T, db *store.DB, home string, n int) []string {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(home, "recordings"), 0o700); err != nil {
		t.Fatal(err)
	}
	pcm := make([]int16, 1600)
	for i := range pcm {
		pcm[i] = int16((i%40 - 20) * 800)
	}
	if err := testpeer.WriteWAV(filepath.Join(home, "recordings", "r.wav"), 16000, 1, pcm); err != nil {
		t.Fatal(err)
	}
	ids := make([]string, n)
	for i := range ids {
		rec, err := db.CreateRecording(context.Background(), store.Recording{CallID: "call", SeanceID: "s", Path: "recordings/r.wav", StartedAt: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = rec.ID
	}
	return ids
}

// TestTranscriptQueueFullKeepsPending: a recording that ends while the
// queue is full keeps its transcript pending in SQLite, and it is made
// once the queue is worked off. It was lost with a log line ("no
// transcript for recording ... too many recordings wait"): no row, no
// transcript, ever.
func TestTranscriptQueueFullKeepsPending(t *testing.T) {
	home := t.TempDir()
	db, err := store.OpenDB(filepath.Join(home, "softphone.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	bg := context.Background()
	const queue = 256 // Transcripts.jobs
	ids := recordingsFor(t, db, home, 1+queue+2)
	settings := store.DefaultSettings()
	settings.Transcription.Recogniser = "http"
	started, release := make(chan struct{}), make(chan struct{})
	first := true
	ddb := doneDB{DB: db, done: make(chan string, len(ids))}
	tr := NewTranscripts(TranscriptsConfig{DB: ddb, Home: home, Settings: func() store.Settings { return settings },
		New: func(_, _, _, _ string) (audio.Transcriber, error) {
			return fnTranscriber(func(context.Context, string) ([]audio.Segment, error) {
				if first { // the runner is busy with the first while the rest end
					first = false
					close(started)
					<-release
				}
				return []audio.Segment{{StartS: 0, EndS: 0.1, Text: "hello"}}, nil
			}), nil
		}})
	ctx, stop := context.WithCancel(bg)
	served := make(chan error, 1)
	go func() { served <- tr.Serve(ctx) }()
	released := false
	defer func() {
		if !released { // a failed test lets the runner go on
			close(release)
		}
		stop()
		<-served
	}()
	if err := tr.Enqueue(ids[0]); err != nil {
		t.Fatal(err)
	}
	<-started
	for _, id := range ids[1:] {
		if err := tr.Enqueue(id); err != nil {
			t.Fatalf("recording %s: %v", id, err)
		}
	}
	for _, id := range ids[1+queue:] {
		if got, err := db.GetTranscript(bg, id); err != nil || got.Status != "pending" {
			t.Fatalf("transcript of a recording beyond the queue: %+v %v, want pending", got, err)
		}
	}
	close(release)
	released = true
	made := map[string]bool{}
	timeout := time.After(60 * time.Second)
	for len(made) < len(ids) {
		select {
		case id := <-ddb.done:
			if made[id] {
				t.Fatalf("recording %s transcribed twice", id)
			}
			made[id] = true
		case <-timeout:
			t.Fatalf("%d of %d transcripts made", len(made), len(ids))
		}
	}
}

// TestTranscriptNotSavedSaysSo: when the done transcript cannot be saved
// (here the database's disk fills up while the recogniser works), the
// transcript is failed with why, not left "running" (the page said "The
// transcript is being made." for the rest of the run, and nothing could
// run it again before a restart). The database lies on a small tmpfs.
func TestTranscriptNotSavedSaysSo(t *testing.T) {
	dir, inside := testpeer.OnSmallTmpfs(t, "4m")
	if !inside {
		return
	}
	db, err := store.OpenDB(filepath.Join(dir, "softphone.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	home := t.TempDir() // the recordings: a disk with room for the channels' copies
	ids := recordingsFor(t, db, home, 1)
	settings := store.DefaultSettings()
	settings.Transcription.Recogniser = "http"
	tr := NewTranscripts(TranscriptsConfig{DB: db, Home: home, Settings: func() store.Settings { return settings },
		New: func(_, _, _, _ string) (audio.Transcriber, error) {
			return fnTranscriber(func(context.Context, string) ([]audio.Segment, error) {
				// The disk fills while the recogniser works, but for a
				// little room: the long transcript does not fit.
				filler := testpeer.FillDisk(t, dir)
				st, err := os.Stat(filler)
				if err != nil {
					t.Error(err)
				} else if err := os.Truncate(filler, st.Size()-64<<10); err != nil {
					t.Error(err)
				}
				return []audio.Segment{{StartS: 0, EndS: 0.1, Text: strings.Repeat("many words ", 200000)}}, nil
			}), nil
		}})
	bg := context.Background()
	err = tr.transcribe(bg, ids[0])
	if err == nil {
		t.Fatal("a transcript the disk had no room for was saved")
	}
	got, gerr := db.GetTranscript(bg, ids[0])
	if gerr != nil || got.Status != "failed" || !store.IsDiskFull(errorString(got.Error)) || len(got.Segments) != 0 {
		t.Fatalf("transcript after its save failed (%v): %+v %v, want failed for a full disk", err, got, gerr)
	}
	t.Logf("stored reason: %s", got.Error)
}

type errorString string

func (e errorString) Error() string { return string(e) }

// TestTranscriptPendingRunsWhenRecogniserSet: transcripts left pending while
// no recogniser was set (a stop kept them, or the setting was none) are made
// once one is set and the runner is woken (cmd does so when the setting
// changes), not only at the next start.
func TestTranscriptPendingRunsWhenRecogniserSet(t *testing.T) {
	home := t.TempDir()
	db, err := store.OpenDB(filepath.Join(home, "softphone.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	bg := context.Background()
	ids := recordingsFor(t, db, home, 2)
	for _, id := range ids {
		if err := db.SaveTranscript(bg, store.Transcript{RecordingID: id, Status: "pending", Recogniser: "http"}); err != nil {
			t.Fatal(err)
		}
	}
	var recogniser atomic.Value
	recogniser.Store("none")
	ddb := doneDB{DB: db, done: make(chan string, len(ids))}
	tr := NewTranscripts(TranscriptsConfig{DB: ddb, Home: home, Settings: func() store.Settings {
		s := store.DefaultSettings()
		s.Transcription.Recogniser = recogniser.Load().(string)
		return s
	}, New: func(_, _, _, _ string) (audio.Transcriber, error) {
		return fnTranscriber(func(context.Context, string) ([]audio.Segment, error) {
			return []audio.Segment{{StartS: 0, EndS: 0.1, Text: "hello"}}, nil
		}), nil
	}})
	ctx, stop := context.WithCancel(bg)
	served := make(chan error, 1)
	go func() { served <- tr.Serve(ctx) }()
	defer func() { stop(); <-served }()
	recogniser.Store("http")
	tr.Wake()
	made := map[string]bool{}
	for len(made) < len(ids) {
		select {
		case id := <-ddb.done:
			made[id] = true
		case <-time.After(10 * time.Second):
			t.Fatalf("%d of %d pending transcripts made after a recogniser was set", len(made), len(ids))
		}
	}
}
