package store

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
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

// replayTimeout bounds the replay at open.
const replayTimeout = 30 * time.Second

func journalPath(dbPath string) string { return dbPath + "-outbox.jnl" }

// JournalOutbox appends events to the journal in one write. Each needs its
// DeliveryID, CreatedAt and NextAt set: the journal keeps them as they are,
// so the event replayed after a crash is the same event.
func (db *DB) JournalOutbox(evs []OutboxEvent) error {
	j := &db.journal
	j.mu.Lock()
	defer j.mu.Unlock()
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
	if _, err := j.f.Write(j.buf.Bytes()); err != nil {
		return fmt.Errorf("outbox journal: %w", err)
	}
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
	if j.pending == 0 && j.f != nil {
		if err := j.f.Truncate(0); err != nil {
			return n, fmt.Errorf("outbox journal: %w", err)
		}
	}
	return n, nil
}

// replayJournal moves what a crash left in the journal into the outbox, in
// journal order, skipping events the outbox or the delivery log already
// has; then it empties the journal. A torn last line is skipped.
func (db *DB) replayJournal(ctx context.Context) (int, error) {
	f, err := os.Open(db.journal.path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("outbox journal: %w", err)
	}
	defer f.Close()
	var evs []OutboxEvent
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadBytes('\n')
		var jl journalLine
		if len(line) > 0 && json.Unmarshal(line, &jl) == nil && jl.DeliveryID != "" {
			evs = append(evs, OutboxEvent{DeliveryID: jl.DeliveryID, CallID: jl.CallID, Event: jl.Event,
				Fields: jl.Fields, Attempts: jl.Attempts, NextAt: fromTS(jl.NextAt), CreatedAt: fromTS(jl.CreatedAt)})
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, fmt.Errorf("outbox journal: %w", err)
		}
	}
	sdb, err := db.raw()
	if err != nil {
		return 0, err
	}
	var fresh []OutboxEvent
	for _, e := range evs {
		var known int
		err := sdb.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM outbox WHERE delivery_id = ?) +
			(SELECT COUNT(*) FROM deliveries WHERE delivery_id = ?)`, e.DeliveryID, e.DeliveryID).Scan(&known)
		if err != nil {
			return 0, fmt.Errorf("outbox journal: %w", err)
		}
		if known == 0 {
			fresh = append(fresh, e)
		}
	}
	// The journal held events the sender had accepted: they are stored
	// whatever the capacity (at most a few hundred milliseconds of events).
	n, err := db.EnqueueOutboxBatch(ctx, fresh, math.MaxInt)
	if err != nil {
		return 0, err
	}
	if err := os.Truncate(db.journal.path, 0); err != nil {
		return n, fmt.Errorf("outbox journal: %w", err)
	}
	return n, nil
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
