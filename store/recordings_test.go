package store

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"
)

func TestRecordingsAndTranscripts(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	r1, err := db.CreateRecording(ctx, Recording{CallID: "c1", SeanceID: "s1", StartedAt: t0, Codec: "PCMU",
		Path: "recordings/c1.wav", Number: "200", Name: "Ada"})
	if err != nil {
		t.Fatal(err)
	}
	if r1.ID == "" {
		t.Fatal("no id")
	}
	r2, err := db.CreateRecording(ctx, Recording{CallID: "c2", StartedAt: t0.Add(time.Hour), Path: "recordings/c2.wav"})
	if err != nil {
		t.Fatal(err)
	}
	r1.DurationS, r1.SizeBytes = 12.5, 200_000
	if err := db.UpdateRecording(ctx, r1); err != nil {
		t.Fatal(err)
	}
	got, err := db.GetRecording(ctx, r1.ID)
	if err != nil || !reflect.DeepEqual(got, r1) {
		t.Fatalf("GetRecording = %+v, %v; want %+v", got, err, r1)
	}
	if err := db.UpdateRecording(ctx, Recording{ID: "nope"}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("update unknown: %v", err)
	}
	list, err := db.ListRecordings(ctx, 0)
	if err != nil || len(list) != 2 || list[0].ID != r2.ID || list[1].ID != r1.ID {
		t.Fatalf("ListRecordings = %+v, %v; want newest first", list, err)
	}
	if list, _ := db.ListRecordings(ctx, 1); len(list) != 1 {
		t.Fatalf("limit 1 gave %d", len(list))
	}

	if _, err := db.GetTranscript(ctx, r1.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("transcript before saving: %v", err)
	}
	tr := Transcript{RecordingID: r1.ID, Status: "done", Recogniser: "http", UpdatedAt: t0,
		Segments: []TranscriptSegment{{Speaker: "remote", StartS: 0, EndS: 2.5, Text: "I want to cancel my contract"},
			{Speaker: "local", StartS: 2.6, EndS: 4, Text: "Sorry to hear that"}}}
	if err := db.SaveTranscript(ctx, Transcript{RecordingID: r1.ID, Status: "running", Recogniser: "http"}); err != nil {
		t.Fatal(err)
	}
	if err := db.SaveTranscript(ctx, tr); err != nil {
		t.Fatal(err)
	}
	gotT, err := db.GetTranscript(ctx, r1.ID)
	if err != nil || !reflect.DeepEqual(gotT, tr) {
		t.Fatalf("GetTranscript = %+v, %v; want %+v", gotT, err, tr)
	}
	if err := db.SaveTranscript(ctx, Transcript{RecordingID: "nope"}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("transcript of unknown recording: %v", err)
	}

	// Deleting a recording removes its transcript and unlinks it from history.
	if err := db.StartHistory(ctx, HistoryEntry{ID: "h1", CallID: "c1", Recording: r1.ID, StartedAt: t0}); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteRecording(ctx, r1.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.GetRecording(ctx, r1.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after delete: %v", err)
	}
	if _, err := db.GetTranscript(ctx, r1.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("transcript after delete: %v", err)
	}
	if h, _ := db.GetHistory(ctx, "h1"); h.Recording != "" {
		t.Fatalf("history still points at the deleted recording: %q", h.Recording)
	}
	if err := db.DeleteRecording(ctx, r1.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("delete twice: %v", err)
	}
}
