package store

import (
	"context"
	"errors"
	"testing"
)

// TestRetryTranscript: only a failed transcript becomes pending again (for
// the recogniser given, its error and text gone); one that is pending,
// running or done, or none at all, is left as it was.
func TestRetryTranscript(t *testing.T) {
	db := openTestDB(t)
	bg := context.Background()
	for _, c := range []struct {
		status string // "" = no transcript
		want   bool
	}{{"failed", true}, {"", false}, {"pending", false}, {"running", false}, {"done", false}} {
		rec, err := db.CreateRecording(bg, Recording{CallID: "c", Path: "recordings/r.wav"})
		if err != nil {
			t.Fatal(err)
		}
		if c.status != "" {
			if err := db.SaveTranscript(bg, Transcript{RecordingID: rec.ID, Status: c.status, Error: "why", Recogniser: "sphinx",
				Segments: []TranscriptSegment{{Text: "hello"}}}); err != nil {
				t.Fatal(err)
			}
		}
		got, err := db.RetryTranscript(bg, rec.ID, "http")
		if err != nil || got != c.want {
			t.Fatalf("retry of a %q transcript: %v %v, want %v", c.status, got, err, c.want)
		}
		tr, err := db.GetTranscript(bg, rec.ID)
		switch {
		case c.status == "":
			if !errors.Is(err, ErrNotFound) {
				t.Fatalf("retry with no transcript made one: %+v %v", tr, err)
			}
		case err != nil:
			t.Fatal(err)
		case c.want && (tr.Status != "pending" || tr.Recogniser != "http" || tr.Error != "" || len(tr.Segments) != 0):
			t.Fatalf("retried transcript: %+v", tr)
		case !c.want && (tr.Status != c.status || tr.Recogniser != "sphinx" || len(tr.Segments) != 1):
			t.Fatalf("%q transcript changed by a refused retry: %+v", c.status, tr)
		}
	}
	if _, err := db.RetryTranscript(bg, "nope", "http"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("retry for no recording: %v", err)
	}
}
