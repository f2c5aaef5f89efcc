package store

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"
)

// The outbox journal: an append-only file beside the database where the
// webhook sender writes each event the moment it has it, so that it can put
// many events into the outbox in one SQLite transaction a little later and
// still lose none to a kill -9 in between. Appending one line costs one
// write(2) of about a kilobyte; an INSERT with its commit writes several 4 KiB
// WAL frames, and on a small machine that difference is what a burst of calls
// competes with (bench/stall). The journal is as durable as the outbox
// itself against a crash of the process: the outbox commits without fsync
// too (synchronous=NORMAL), so both rely on the page cache.
//
// Lines are replayed into the outbox when the database is opened, skipping
// events already there or already in the delivery log (a crash between the
// outbox commit and the journal's truncation), then the journal is emptied.
type outboxJournal struct {
	mu      sync.Mutex
	path    string
	f       *os.File // nil until the first append
	pending int      // events appended since the journal was last emptied
	buf     bytes.Buffer
	size    int64 // bytes in the file since it was last emptied (a failed append is cut back to it)
	limit   int   // events it holds at most: the outbox's capacity (SetOutboxCapacity)

	replayDropped int   // events the replay at open dropped beyond the capacity
	replayErr     error // why the replay at open failed (the journal is then kept for the next start)
}

// journalLine is one event in the journal (short keys: it is written for
// every event).
type journalLine struct {
	DeliveryID string            `json:"d"`
	CallID     string            `json:"c"`
	Event      string            `json:"e"`
	Fields     map[string]string `json:"f"`
	Attempts   int               `json:"a,omitempty"`
	NextAt     int64             `json:"n"`
	CreatedAt  int64             `json:"t"`
}

// replayTimeout only guards against a disk that hangs: the replay stores at
// most the outbox's capacity and only counts the lines beyond
// (outbox_replay.go), so it takes a fraction of a second even for a journal
// of 400,000 lines. A replay that times out keeps the journal.
const replayTimeout = 60 * time.Second

func journalPath(dbPath string) string { return dbPath + "-outbox.jnl" }

// JournalOutbox appends events to the journal in one write. Each needs its
// DeliveryID, CreatedAt and NextAt set: the journal keeps them as they are,
// so the event replayed after a crash is the same event.
func (db *DB) JournalOutbox(evs []OutboxEvent) error {
	j := &db.journal
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.pending+len(evs) > j.limitOr() {
		return fmt.Errorf("outbox journal: %w", ErrJournalFull)
	}
	if j.f == nil {
		f, err := os.OpenFile(j.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return fmt.Errorf("outbox journal: %w", err)
		}
		j.f = f
	}
	j.buf.Reset()
	enc := json.NewEncoder(&j.buf)
	for _, e := range evs {
		if e.DeliveryID == "" || e.CreatedAt.IsZero() || e.NextAt.IsZero() {
			return fmt.Errorf("outbox journal: %w: event %s of call %s lacks its id or times", ErrInvalid, e.Event, e.CallID)
		}
		if err := enc.Encode(journalLine{DeliveryID: e.DeliveryID, CallID: e.CallID, Event: e.Event, Fields: e.Fields,
			Attempts: e.Attempts, NextAt: ts(e.NextAt), CreatedAt: ts(e.CreatedAt)}); err != nil {
			return fmt.Errorf("outbox journal: %w", err)
		}
	}
	n, err := j.f.Write(j.buf.Bytes())
	if err != nil {
		if n > 0 {
			// A short write (a full disk) would glue a torn line to the
			// next one: cut the file back to its last whole line.
			_ = j.f.Truncate(j.size)
		}
		return fmt.Errorf("outbox journal: %w", err)
	}
	j.size += int64(n)
	j.pending += len(evs)
	return nil
}

// EnqueueJournaled puts events written with JournalOutbox into the outbox
// (EnqueueOutboxBatch: those beyond capacity are not stored) and empties the
// journal once every journaled event has been put.
func (db *DB) EnqueueJournaled(ctx context.Context, evs []OutboxEvent, capacity int) (int, error) {
	n, err := db.EnqueueOutboxBatch(ctx, evs, capacity)
	if err != nil {
		return n, err
	}
	j := &db.journal
	j.mu.Lock()
	defer j.mu.Unlock()
	j.pending = max(0, j.pending-len(evs))
	if j.pending == 0 && j.f != nil && j.size > 0 {
		if err := j.f.Truncate(0); err != nil {
			return n, fmt.Errorf("outbox journal: %w", err)
		}
		j.size = 0
	}
	return n, nil
}

// limitOr is the journal's bound: the capacity given, else OutboxCapacity.
func (j *outboxJournal) limitOr() int {
	if j.limit > 0 {
		return j.limit
	}
	return OutboxCapacity
}

// SetOutboxCapacity tells the store the webhook outbox's capacity: the
// journal holds at most that many events (JournalOutbox refuses more with
// ErrJournalFull) and the replay at the next open stores at most that many.
func (db *DB) SetOutboxCapacity(n int) {
	db.journal.mu.Lock()
	db.journal.limit = n
	db.journal.mu.Unlock()
}

// JournalReplay reports the replay of the journal at open: how many events
// beyond the outbox's capacity it dropped (they count in
// webhooks_dropped_total) and, when it failed, why (the journal is then
// kept for the next start and not written this run).
func (db *DB) JournalReplay() (dropped int, err error) {
	db.journal.mu.Lock()
	defer db.journal.mu.Unlock()
	return db.journal.replayDropped, db.journal.replayErr
}

// closeJournal closes the journal file.
func (db *DB) closeJournal() {
	j := &db.journal
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f != nil {
		_ = j.f.Close()
		j.f = nil
	}
}
