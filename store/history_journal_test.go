package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestHistoryJournalReplayed: writes the database refused and the journal
// took are in the history after the next open (a crash during a full disk),
// applied in order and idempotently; the journal is then empty.
func TestHistoryJournalReplayed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "softphone.db")
	db := openAt(t, path)
	ctx := context.Background()
	if err := db.StartHistory(ctx, HistoryEntry{CallID: "written", Direction: "in", StartedAt: t0}); err != nil {
		t.Fatal(err)
	}
	for _, w := range []struct {
		kind string
		e    HistoryEntry
	}{
		{HistoryStart, HistoryEntry{CallID: "written", Direction: "in", StartedAt: t0}}, // a repeat: ignored
		{HistoryAnswer, HistoryEntry{CallID: "written", AnsweredAt: t0.Add(time.Second), AnsweredBy: "no"}},
		{HistoryStart, HistoryEntry{CallID: "only-journal", Direction: "out", Number: "300", StartedAt: t0}},
		{HistoryFinish, HistoryEntry{CallID: "only-journal", Direction: "out", Number: "300", StartedAt: t0,
			Outcome: "failed", Reason: "busy", EndedAt: t0.Add(2 * time.Second)}},
	} {
		if err := db.JournalHistory(w.kind, w.e); err != nil {
			t.Fatal(err)
		}
	}
	db.Close() // the process dies with the writes only in the journal
	db = openAt(t, path)
	if err := db.HistoryJournalReplay(); err != nil {
		t.Fatal(err)
	}
	e, err := db.HistoryByCall(ctx, "written")
	if err != nil || !e.Open || !e.Answered || !e.AnsweredAt.Equal(t0.Add(time.Second)) {
		t.Fatalf("answered entry %+v, %v", e, err)
	}
	e, err = db.HistoryByCall(ctx, "only-journal")
	if err != nil || e.Open || e.Outcome != "failed" || e.Reason != "busy" || e.Number != "300" {
		t.Fatalf("journal-only entry %+v, %v", e, err)
	}
	if st, _ := os.Stat(historyJournalPath(path)); st.Size() != 0 {
		t.Fatalf("history journal holds %d bytes after the replay", st.Size())
	}
}
