package sipua

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/softphone/softphone/audio"
	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// fnTranscriber is a recogniser made of a function.
type fnTranscriber func(ctx context.Context, path string) ([]audio.Segment, error)

func (f fnTranscriber) Transcribe(ctx context.Context, path string) ([]audio.Segment, error) {
	return f(ctx, path)
}

// A transcript the phone's shutdown cancels mid-run is not a failure: it
// stays pending in SQLite, as does one still waiting in the queue, and the next start transcribes it (README: "the
// queue is in SQLite and resumes at the next start").
func TestTranscriptStoppedByShutdownResumes(t *testing.T) {
	home := t.TempDir()
	db, err := store.OpenDB(filepath.Join(home, "softphone.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	bg := context.Background()
	if err := os.MkdirAll(filepath.Join(home, "recordings"), 0o700); err != nil {
		t.Fatal(err)
	}
	pcm := make([]int16, 16000)
	for i := range pcm {
		pcm[i] = int16((i%40 - 20) * 800)
	}
	if err := testpeer.WriteWAV(filepath.Join(home, "recordings", "r1.wav"), 16000, 1, pcm); err != nil {
		t.Fatal(err)
	}
	rec, err := db.CreateRecording(bg, store.Recording{CallID: "call-1", SeanceID: "s-1", Path: "recordings/r1.wav", StartedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	// A second recording waits in the queue behind the first at the stop.
	if err := testpeer.WriteWAV(filepath.Join(home, "recordings", "r2.wav"), 16000, 1, pcm); err != nil {
		t.Fatal(err)
	}
	rec2, err := db.CreateRecording(bg, store.Recording{CallID: "call-2", SeanceID: "s-2", Path: "recordings/r2.wav", StartedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	settings := store.DefaultSettings()
	settings.Transcription.Recogniser, settings.Transcription.URL = "http", "http://127.0.0.1:1"
	cfg := TranscriptsConfig{DB: db, Home: home, Settings: func() store.Settings { return settings }}

	// First run: the recogniser works until the phone stops.
	started := make(chan struct{}, 1)
	cfg.New = func(_, _, _, _ string) (audio.Transcriber, error) {
		return fnTranscriber(func(ctx context.Context, _ string) ([]audio.Segment, error) {
			started <- struct{}{}
			<-ctx.Done()
			return nil, ctx.Err()
		}), nil
	}
	tr := NewTranscripts(cfg)
	ctx, stop := context.WithCancel(bg)
	served := make(chan error, 1)
	go func() { served <- tr.Serve(ctx) }()
	if err := tr.Enqueue(rec.ID); err != nil {
		t.Fatal(err)
	}
	if err := tr.Enqueue(rec2.ID); err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("recogniser never asked")
	}
	stop()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{rec.ID, rec2.ID} {
		got, err := db.GetTranscript(bg, id)
		if err != nil || got.Status != "pending" || got.Error != "" {
			t.Fatalf("transcript after the shutdown: %+v %v, want pending", got, err)
		}
	}

	// Next start: the pending transcript is run before anything new.
	cfg.New = func(_, _, _, _ string) (audio.Transcriber, error) {
		return fnTranscriber(func(context.Context, string) ([]audio.Segment, error) {
			return []audio.Segment{{StartS: 0, EndS: 1, Text: "hello again"}}, nil
		}), nil
	}
	NewTranscripts(cfg).resume(bg)
	for _, id := range []string{rec.ID, rec2.ID} {
		got, err := db.GetTranscript(bg, id)
		if err != nil || got.Status != "done" || len(got.Segments) != 1 || got.Segments[0].Text != "hello again" {
			t.Fatalf("transcript after the next start: %+v %v", got, err)
		}
	}
}
