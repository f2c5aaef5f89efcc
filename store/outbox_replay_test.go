package store

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// writeJournal writes n journal lines of realistic events (the 17 fields of
// a webhook) straight to the journal of the database at path, as a run
// killed during a long outage leaves it.
func writeJournal(t testing.TB, path string, n int) {
	t.Helper()
	f, err := os.Create(journalPath(path))
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	now := time.Now().UnixNano()
	enc := json.NewEncoder(w)
	for i := range n {
		call := fmt.Sprintf("c%07d-8c0e-4f1a-9d7a-2f6b5e4d3c21", i/3)
		_ = enc.Encode(journalLine{DeliveryID: fmt.Sprintf("d%09d-3b52-4c1e-9d7a-2f6b5e4d3c21", i), CallID: call,
			Event: "call-state-changed", NextAt: now, CreatedAt: now, Fields: map[string]string{
				"event": "call-state-changed", "id": call, "seance_id": call, "direction": "in", "state": "active",
				"number": "+4930123456", "name": "Ada Lovelace", "uri": "sip:+4930123456@pbx.example.com",
				"dialed": "", "account": "alice@pbx.example.com", "account_id": "8c0e7f1a-3b52-4c1e-9d7a-2f6b5e4d3c21",
				"event_ts": "1790000000000", "callstart_ts": "1790000000000", "callstate_ts": "1790000000000",
				"duration_s": "0", "reason": "none", "answered_by": "no"}})
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func openAt(t testing.TB, path string) *DB {
	t.Helper()
	db, err := OpenDB(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// TestHugeJournalBoundedReplay: a journal of 100,000 events left by a long
// outage fills the outbox to its capacity (the oldest events, in order),
// the rest is reported dropped, the journal is emptied, and the open
// returns (the time is logged; BenchmarkOpenHugeJournal measures 400,000
// lines, and cmd/softphone's TestHugeJournalStart starts the binary on them).
func TestHugeJournalBoundedReplay(t *testing.T) {
	lines := hugeJournal
	if testing.Short() {
		lines = min(lines, 20_000)
	}
	path := filepath.Join(t.TempDir(), "softphone.db")
	openAt(t, path).Close()
	writeJournal(t, path, lines)
	st, _ := os.Stat(journalPath(path))
	start := time.Now()
	db := openAt(t, path)
	took := time.Since(start)
	t.Logf("open with a %d-line journal (%d MB): %v", lines, st.Size()>>20, took.Round(time.Millisecond))
	stored := min(lines, OutboxCapacity)
	dropped, err := db.JournalReplay()
	if err != nil || dropped != lines-stored {
		t.Fatalf("replay dropped %d, %v; want %d", dropped, err, lines-stored)
	}
	if n, err := db.OutboxLen(context.Background()); err != nil || n != stored {
		t.Fatalf("outbox holds %d, %v; want %d (the capacity is %d)", n, err, stored, OutboxCapacity)
	}
	due, err := db.DueOutbox(context.Background(), time.Now().Add(time.Hour), 1)
	if err != nil || len(due) != 1 || due[0].DeliveryID != "d000000000-3b52-4c1e-9d7a-2f6b5e4d3c21" {
		t.Fatalf("first event %+v, %v; want the journal's first", due, err)
	}
	if st, _ := os.Stat(journalPath(path)); st.Size() != 0 {
		t.Fatalf("journal holds %d bytes after the replay", st.Size())
	}
}

// TestCorruptAndTruncatedJournal: garbage lines, an overlong line without
// newline in the middle, and a torn last line are skipped; the good events
// are replayed and the phone opens.
func TestCorruptAndTruncatedJournal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "softphone.db")
	openAt(t, path).Close()
	writeJournal(t, path, 5)
	good, _ := os.ReadFile(journalPath(path))
	var b []byte
	b = append(b, "{not json\n\x00\x01\x02\n"...)
	b = append(b, good[:len(good)/2]...) // a torn line glued to the next
	b = append(b, '\n')
	big := make([]byte, 3*maxJournalLine)
	for i := range big {
		big[i] = 'x'
	}
	b = append(b, big...)
	b = append(b, '\n')
	b = append(b, good...)
	b = append(b, good[:len(good)-40]...) // torn at the end
	if err := os.WriteFile(journalPath(path), b, 0o600); err != nil {
		t.Fatal(err)
	}
	db := openAt(t, path)
	if _, err := db.JournalReplay(); err != nil {
		t.Fatal(err)
	}
	// The five good events once (the torn copies' whole lines are known).
	if n, _ := db.OutboxLen(context.Background()); n != 5 {
		t.Fatalf("outbox holds %d events; want the 5 good ones", n)
	}
}

// TestFailedOutboxWriteStillEmptiesJournal: a batch whose outbox write fails
// stays journaled; once it is written (retried), the journal is emptied.
func TestFailedOutboxWriteStillEmptiesJournal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "softphone.db")
	db := openAt(t, path)
	evs := journalEvents("a", 3)
	if err := db.JournalOutbox(evs); err != nil {
		t.Fatal(err)
	}
	dead, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := db.EnqueueJournaled(dead, evs, 100); err == nil {
		t.Fatal("a write with a cancelled context succeeded")
	}
	more := journalEvents("b", 1)
	if err := db.JournalOutbox(more); err != nil {
		t.Fatal(err)
	}
	for _, batch := range [][]OutboxEvent{evs, more} {
		if _, err := db.EnqueueJournaled(context.Background(), batch, 100); err != nil {
			t.Fatal(err)
		}
	}
	if st, _ := os.Stat(journalPath(path)); st.Size() != 0 {
		t.Fatalf("journal holds %d bytes after every event was written", st.Size())
	}
}

// TestJournalBoundedToCapacity: the journal refuses events beyond the
// outbox's capacity.
func TestJournalBoundedToCapacity(t *testing.T) {
	db := openAt(t, filepath.Join(t.TempDir(), "softphone.db"))
	db.SetOutboxCapacity(4)
	if err := db.JournalOutbox(journalEvents("a", 3)); err != nil {
		t.Fatal(err)
	}
	if err := db.JournalOutbox(journalEvents("b", 2)); err == nil {
		t.Fatal("journal took more than the capacity")
	}
	if err := db.JournalOutbox(journalEvents("c", 1)); err != nil {
		t.Fatal(err)
	}
}

func BenchmarkOpenHugeJournal(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "softphone.db")
	openAt(b, path).Close()
	for b.Loop() {
		b.StopTimer()
		_ = os.Remove(path)
		_ = os.Remove(path + "-wal")
		_ = os.Remove(path + "-shm")
		writeJournal(b, path, 400_000)
		b.StartTimer()
		db, err := OpenDB(path)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		_ = db.Close()
		b.StartTimer()
	}
}
