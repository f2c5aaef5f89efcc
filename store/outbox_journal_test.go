package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func journalEvents(call string, n int) []OutboxEvent {
	now := time.Now().UTC().Truncate(time.Microsecond)
	var evs []OutboxEvent
	for i := range n {
		evs = append(evs, OutboxEvent{DeliveryID: fmt.Sprintf("%s-d%d", call, i), CallID: call, Event: fmt.Sprint("e", i),
			Fields: map[string]string{"id": call, "i": fmt.Sprint(i)}, NextAt: now, CreatedAt: now.Add(time.Duration(i))})
	}
	return evs
}

// drainOutbox takes every event out of the outbox in delivery order.
func drainOutbox(t *testing.T, db *DB) []OutboxEvent {
	t.Helper()
	ctx := context.Background()
	var out []OutboxEvent
	for {
		due, err := db.DueOutbox(ctx, time.Now().Add(time.Hour), 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(due) == 0 {
			return out
		}
		out = append(out, due[0])
		if err := db.OutboxDone(ctx, due[0].Seq, 200, true, ""); err != nil {
			t.Fatal(err)
		}
	}
}

func reopen(t *testing.T, db *DB, path string) *DB {
	t.Helper()
	_ = db.Close()
	db, err := OpenDB(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// TestJournalReplayedAfterCrash: events journaled but not yet put into the
// outbox (the process died in between) are in the outbox after the next
// open, in order and unchanged, and the journal is empty; a torn last line
// is skipped.
func TestJournalReplayedAfterCrash(t *testing.T) {
	path := filepath.Join(t.TempDir(), "softphone.db")
	db, err := OpenDB(path)
	if err != nil {
		t.Fatal(err)
	}
	evs := journalEvents("c1", 3)
	if err := db.JournalOutbox(evs[:2]); err != nil {
		t.Fatal(err)
	}
	if err := db.JournalOutbox(evs[2:]); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(journalPath(path), os.O_WRONLY|os.O_APPEND, 0)
	_, _ = f.WriteString(`{"d":"torn","c":"c1","e":"x","f":{"i`)
	_ = f.Close()
	db = reopen(t, db, path)
	got := drainOutbox(t, db)
	if len(got) != 3 {
		t.Fatalf("replayed %d events: %+v", len(got), got)
	}
	for i, e := range got {
		w := evs[i]
		if e.DeliveryID != w.DeliveryID || e.Event != w.Event || e.Fields["i"] != w.Fields["i"] ||
			!e.CreatedAt.Equal(w.CreatedAt) || !e.NextAt.Equal(w.NextAt) {
			t.Fatalf("event %d replayed as %+v, want %+v", i, e, w)
		}
	}
	if st, err := os.Stat(journalPath(path)); err != nil || st.Size() != 0 {
		t.Fatalf("journal after replay: %v %v", st, err)
	}
	if st, _ := os.Stat(journalPath(path)); st.Mode().Perm() != 0o600 {
		t.Fatalf("journal mode %v", st.Mode().Perm())
	}
}

// TestJournalNoDuplicates: a crash after the outbox commit but before the
// journal was emptied replays nothing twice, and an event already delivered
// is not queued again.
func TestJournalNoDuplicates(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "softphone.db")
	db, err := OpenDB(path)
	if err != nil {
		t.Fatal(err)
	}
	evs := journalEvents("c1", 3)
	if err := db.JournalOutbox(evs); err != nil {
		t.Fatal(err)
	}
	// Committed without emptying the journal, as a crash right after the
	// commit would leave it; the first is delivered meanwhile.
	if n, err := db.EnqueueOutboxBatch(ctx, evs, 100); err != nil || n != 3 {
		t.Fatal(n, err)
	}
	due, _ := db.DueOutbox(ctx, time.Now().Add(time.Hour), 1)
	if err := db.OutboxDone(ctx, due[0].Seq, 200, true, ""); err != nil {
		t.Fatal(err)
	}
	db = reopen(t, db, path)
	got := drainOutbox(t, db)
	if len(got) != 2 || got[0].DeliveryID != evs[1].DeliveryID || got[1].DeliveryID != evs[2].DeliveryID {
		t.Fatalf("after reopen the outbox holds %+v", got)
	}
}

// TestJournalEmptiedWhenPut: EnqueueJournaled empties the journal once all
// journaled events are in the outbox, not before.
func TestJournalEmptiedWhenPut(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "softphone.db")
	db, err := OpenDB(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	a, b := journalEvents("a", 2), journalEvents("b", 1)
	if err := db.JournalOutbox(a); err != nil {
		t.Fatal(err)
	}
	if err := db.JournalOutbox(b); err != nil {
		t.Fatal(err)
	}
	if _, err := db.EnqueueJournaled(ctx, a, 100); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(journalPath(path)); st.Size() == 0 {
		t.Fatal("journal emptied while an event was still only there")
	}
	if _, err := db.EnqueueJournaled(ctx, b, 100); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(journalPath(path)); st.Size() != 0 {
		t.Fatalf("journal holds %d bytes after every event was put", st.Size())
	}
	if err := db.JournalOutbox([]OutboxEvent{{CallID: "x", Event: "call-started"}}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("an event without id and times: %v", err)
	}
}
