package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// waitingFixture makes n recordings; every tenth has a pending transcript,
// every hundredth's is running, the rest done.
func waitingFixture(t testing.TB, db *DB, n int) (waiting []string) {
	t.Helper()
	bg := context.Background()
	base := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	for i := range n {
		rec, err := db.CreateRecording(bg, Recording{ID: fmt.Sprintf("rec-%06d", i), CallID: "c", Path: "recordings/r.wav"})
		if err != nil {
			t.Fatal(err)
		}
		status := "done"
		switch {
		case i%100 == 0:
			status = "running"
		case i%10 == 0:
			status = "pending"
		}
		// Saved in reverse: the oldest transcript is the newest recording's.
		at := base.Add(time.Duration(n-i) * time.Second)
		if err := db.SaveTranscript(bg, Transcript{RecordingID: rec.ID, Status: status, UpdatedAt: at}); err != nil {
			t.Fatal(err)
		}
		if status != "done" {
			waiting = append([]string{rec.ID}, waiting...)
		}
	}
	return waiting
}

// TestWaitingTranscripts: the pending and the running transcripts, and
// only they, oldest first, a page at a time, none twice.
func TestWaitingTranscripts(t *testing.T) {
	db := openTestDB(t)
	want := waitingFixture(t, db, 1000)
	var got []string
	var after WaitingTranscript
	for {
		page, err := db.WaitingTranscripts(context.Background(), after, 7)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		for _, w := range page {
			if w.Status != "pending" && w.Status != "running" {
				t.Fatalf("listed %+v", w)
			}
			got = append(got, w.RecordingID)
		}
		after = page[len(page)-1]
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("waiting transcripts %d: %v\nwant %d: %v", len(got), got, len(want), want)
	}
}

// TestWaitingTranscriptsPlan: the scan walks the partial index in its
// order, with no sort and no look at the transcripts that do not wait.
func TestWaitingTranscriptsPlan(t *testing.T) {
	db := openTestDB(t)
	waitingFixture(t, db, 500)
	p := queryPlan(t, db, waitingTranscriptsSQL, 0, "", 100)
	if !strings.Contains(p, "INDEX transcripts_waiting") || strings.Contains(p, "TEMP B-TREE") {
		t.Errorf("plan %q: want the index transcripts_waiting and no sort", p)
	}
}

// TestClaimTranscript: a waiting transcript, or none, is claimed (running);
// a done or failed one is not, and is left as it was.
func TestClaimTranscript(t *testing.T) {
	db := openTestDB(t)
	bg := context.Background()
	for _, c := range []struct {
		status string // "" = no transcript
		want   bool
	}{{"", true}, {"pending", true}, {"running", true}, {"done", false}, {"failed", false}} {
		rec, err := db.CreateRecording(bg, Recording{CallID: "c", Path: "recordings/r.wav"})
		if err != nil {
			t.Fatal(err)
		}
		if c.status != "" {
			if err := db.SaveTranscript(bg, Transcript{RecordingID: rec.ID, Status: c.status, Error: "why",
				Segments: []TranscriptSegment{{Text: "hello"}}}); err != nil {
				t.Fatal(err)
			}
		}
		got, err := db.ClaimTranscript(bg, rec.ID, "http")
		if err != nil || got != c.want {
			t.Fatalf("claim of a %q transcript: %v %v, want %v", c.status, got, err, c.want)
		}
		tr, err := db.GetTranscript(bg, rec.ID)
		if err != nil {
			t.Fatal(err)
		}
		if c.want && (tr.Status != "running" || tr.Recogniser != "http" || tr.Error != "" || len(tr.Segments) != 0) {
			t.Fatalf("claimed %q transcript: %+v", c.status, tr)
		}
		if !c.want && (tr.Status != c.status || len(tr.Segments) != 1) {
			t.Fatalf("%q transcript changed by a refused claim: %+v", c.status, tr)
		}
	}
	if _, err := db.ClaimTranscript(bg, "nope", "http"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("claim for no recording: %v", err)
	}
}
