package sipua

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/softphone/softphone/audio"
	"github.com/softphone/softphone/store"
)

// BenchmarkTranscriptScan: one scan of the waiting transcripts (at each
// start and each Wake: a full queue, a recogniser set) on a phone with
// 10,000 recordings whose transcripts are done, none waiting. It asked for
// each recording's transcript, a query per recording; it reads the
// waiting ones only now.
func BenchmarkTranscriptScan(b *testing.B) {
	home := b.TempDir()
	db, err := store.OpenDB(filepath.Join(home, "softphone.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	bg := context.Background()
	for i := range 10000 {
		rec, err := db.CreateRecording(bg, store.Recording{ID: fmt.Sprintf("rec-%05d", i), CallID: "c", Path: "recordings/r.wav"})
		if err != nil {
			b.Fatal(err)
		}
		if err := db.SaveTranscript(bg, store.Transcript{RecordingID: rec.ID, Status: "done", Recogniser: "http"}); err != nil {
			b.Fatal(err)
		}
	}
	settings := store.DefaultSettings()
	settings.Transcription.Recogniser = "http"
	ran := 0
	tr := NewTranscripts(TranscriptsConfig{DB: db, Home: home, Settings: func() store.Settings { return settings },
		New: func(_, _, _, _ string) (audio.Transcriber, error) {
			ran++
			return fnTranscriber(func(context.Context, string) ([]audio.Segment, error) { return nil, nil }), nil
		}})
	b.ResetTimer()
	for range b.N {
		tr.resume(bg)
	}
	if ran != 0 {
		b.Fatalf("%d done transcripts run again", ran)
	}
}
