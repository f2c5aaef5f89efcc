package sipua

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// TestTranscriptFlagsTheCall runs the transcript runner against the real
// store and a real HTTP recogniser speaking the OpenAI-compatible request:
// the far end says a red-flag phrase, the transcript is saved per speaker and
// the call's history entry gets the red flag.
func TestTranscriptFlagsTheCall(t *testing.T) {
	home := t.TempDir()
	db, err := store.OpenDB(filepath.Join(home, "softphone.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	var requests atomic.Int32
	recogniser := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if r.URL.Path != "/v1/audio/transcriptions" || r.Header.Get("Authorization") != "Bearer rk" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"text": "I want to cancel my contract",
			"segments": []map[string]any{{"start": 0.5, "end": 2.0, "text": "I want to cancel my contract"}}})
	}))
	defer recogniser.Close()

	if err := db.StartHistory(ctx, store.HistoryEntry{CallID: "call-1", SeanceID: "s-1", Direction: "in", Number: "100", StartedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, "recordings"), 0o700); err != nil {
		t.Fatal(err)
	}
	pcm := make([]int16, 2*16000*2)
	for i := range pcm {
		pcm[i] = int16((i%40 - 20) * 800) // both channels audible
	}
	if err := testpeer.WriteWAV(filepath.Join(home, "recordings", "r1.wav"), 16000, 2, pcm); err != nil {
		t.Fatal(err)
	}
	rec, err := db.CreateRecording(ctx, store.Recording{CallID: "call-1", SeanceID: "s-1", Path: "recordings/r1.wav", StartedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	settings := store.DefaultSettings()
	settings.Transcription.Recogniser, settings.Transcription.URL = "http", recogniser.URL
	tr := NewTranscripts(TranscriptsConfig{DB: db, Secrets: secretMap{"recogniser:http": "rk"}, Home: home,
		Settings: func() store.Settings { return settings }})
	if err := tr.transcribe(ctx, rec.ID); err != nil {
		t.Fatal(err)
	}
	got, err := db.GetTranscript(ctx, rec.ID)
	if err != nil || got.Status != "done" || len(got.Segments) == 0 {
		t.Fatalf("transcript %+v %v", got, err)
	}
	if requests.Load() != 2 {
		t.Errorf("recogniser asked %d times, want once per channel", requests.Load())
	}
	h, err := db.HistoryByCall(ctx, "call-1")
	if err != nil || !slices.Contains(h.Tags, "cancellation") {
		t.Fatalf("history not flagged: %+v %v", h.Tags, err)
	}

	// A recogniser that is down gives a failed transcript that can be retried.
	// It is run again as Retry asks: pending first (the runner's claim
	// leaves a done one as it is).
	recogniser.Close()
	if err := db.SaveTranscript(ctx, store.Transcript{RecordingID: rec.ID, Status: "pending", Recogniser: "http"}); err != nil {
		t.Fatal(err)
	}
	if err := tr.transcribe(ctx, rec.ID); err == nil {
		t.Fatal("transcribe succeeded with the recogniser down")
	}
	if got, _ := db.GetTranscript(ctx, rec.ID); got.Status != "failed" || got.Error == "" {
		t.Fatalf("failure not recorded: %+v", got)
	}
}
