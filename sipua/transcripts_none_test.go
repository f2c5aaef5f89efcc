package sipua

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/softphone/softphone/audio"
	"github.com/softphone/softphone/store"
)

// TestRecogniserNoneKeepsQueuedPending: the recogniser set to none while
// transcripts wait in the queue leaves them pending (the page says none is
// set), not failed; once one is set again (Wake) they are made.
func TestRecogniserNoneKeepsQueuedPending(t *testing.T) {
	home := t.TempDir()
	db, err := store.OpenDB(filepath.Join(home, "softphone.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	bg := context.Background()
	ids := recordingsFor(t, db, home, 3)
	var recogniser atomic.Value
	recogniser.Store("http")
	settings := func() store.Settings {
		s := store.DefaultSettings()
		s.Transcription.Recogniser = recogniser.Load().(string)
		return s
	}
	started, release := make(chan struct{}, 8), make(chan struct{})
	tr := NewTranscripts(TranscriptsConfig{DB: db, Home: home, Settings: settings,
		New: func(r, url, model, key string) (audio.Transcriber, error) {
			if r != "http" {
				return audio.NewTranscriber(r, url, model, key) // none: the real refusal
			}
			return fnTranscriber(func(context.Context, string) ([]audio.Segment, error) {
				started <- struct{}{}
				<-release
				return []audio.Segment{{StartS: 0, EndS: 0.1, Text: "hello"}}, nil
			}), nil
		}})
	ctx, stop := context.WithCancel(bg)
	served := make(chan error, 1)
	go func() { served <- tr.Serve(ctx) }()
	defer func() { stop(); <-served }()
	closed := false
	defer func() {
		if !closed {
			close(release)
		}
	}()

	for _, id := range ids {
		if err := tr.Enqueue(id); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-started: // the first runs; the other two wait in the queue
	case <-time.After(10 * time.Second):
		t.Fatal("the first transcript did not start")
	}
	recogniser.Store("none")
	closed = true
	close(release)
	waitTranscript(t, db, ids[0], "done") // the run under way ends as it would
	// The queue is worked off: what it held is pending, not failed.
	deadline := time.Now().Add(10 * time.Second)
	for tr.isQueued(ids[1]) || tr.isQueued(ids[2]) {
		if time.Now().After(deadline) {
			t.Fatal("the queue was not worked off")
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, id := range ids[1:] {
		got, err := db.GetTranscript(bg, id)
		if err != nil || got.Status != "pending" {
			t.Fatalf("queued transcript after the recogniser was set to none: %q %q %v, want pending", got.Status, got.Error, err)
		}
	}
	recogniser.Store("http")
	tr.Wake() // what cmd does when a recogniser is set
	for _, id := range ids[1:] {
		waitTranscript(t, db, id, "done")
	}
}
