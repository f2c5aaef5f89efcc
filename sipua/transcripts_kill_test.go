package sipua

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/softphone/softphone/audio"
	"github.com/softphone/softphone/store"
)

// TestQueuedTranscriptSurvivesKill: a recording that ended and waits in
// the queue behind a long transcript when the phone is killed (kill -9, a
// power cut: no stop saves the queue) is transcribed at the next start.
// The queue was in memory only: no row, so the next start knew nothing of
// it and the transcript was never made (README: a killed phone "loses
// nothing"), and meanwhile its page said "No transcript.".
func TestQueuedTranscriptSurvivesKill(t *testing.T) {
	home := t.TempDir()
	db, err := store.OpenDB(filepath.Join(home, "softphone.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	bg := context.Background()
	ids := recordingsFor(t, db, home, 1)
	settings := store.DefaultSettings()
	settings.Transcription.Recogniser = "http"
	cfg := TranscriptsConfig{DB: db, Home: home, Settings: func() store.Settings { return settings },
		New: func(_, _, _, _ string) (audio.Transcriber, error) {
			return fnTranscriber(func(context.Context, string) ([]audio.Segment, error) {
				return []audio.Segment{{StartS: 0, EndS: 0.1, Text: "hello"}}, nil
			}), nil
		}}
	// The first run queues it; its runner never takes it (busy, then killed).
	if err := NewTranscripts(cfg).Enqueue(ids[0]); err != nil {
		t.Fatal(err)
	}
	if got, err := db.GetTranscript(bg, ids[0]); err != nil || got.Status != "pending" {
		t.Fatalf("queued transcript in SQLite: %+v %v, want pending", got, err)
	}
	// The next start.
	NewTranscripts(cfg).resume(bg)
	if got, err := db.GetTranscript(bg, ids[0]); err != nil || got.Status != "done" {
		t.Fatalf("queued transcript after a kill and a start: %+v %v, want done", got, err)
	}
}
