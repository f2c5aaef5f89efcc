package store

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// OutboxCapacity is the webhook outbox's default capacity in events (the
// sender's DefaultCapacity): what the journal holds and its replay stores
// at most, unless SetOutboxCapacity says otherwise.
const OutboxCapacity = 10000

// Replaying the journal at open (issue 14, "the journal is bounded and
// fast"): it is read as a stream, a line at a time in a fixed buffer, so a
// journal of any size costs the same memory; its events go into the outbox
// in batches, in journal order, skipping those the outbox or the delivery
// log already has (a crash between the outbox commit and the truncation),
// until the outbox is full. The lines beyond are only counted (a byte scan,
// no parsing) and reported as dropped. Lines that do not parse (a torn last
// line, a corrupt file) and lines longer than maxJournalLine are skipped.

// maxJournalLine bounds one journal line (an event is about 1 KiB).
const maxJournalLine = 64 << 10

// replayBatch is how many events one dedupe query and insert carry.
const replayBatch = 256

// replayJournal runs at open. On success the journal is emptied; on failure
// (the database cannot be written) it is kept for the next start and this
// run does not write to it (JournalOutbox finds it full).
func (db *DB) replayJournal(ctx context.Context) {
	j := &db.journal
	dropped, err := db.replayLines(ctx)
	if err == nil {
		if err = os.Truncate(j.path, 0); errors.Is(err, os.ErrNotExist) {
			err = nil
		}
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.replayDropped = dropped
	if err != nil {
		j.replayErr = fmt.Errorf("outbox journal %s: %w", j.path, err)
		j.pending = 1 << 40 // kept as it is: nothing appended, never emptied this run
	}
}

// replayLine is one journal line as the replay reads it: the fields stay
// the JSON they are (the outbox stores that same JSON), which spares
// decoding and encoding them again.
type replayLine struct {
	DeliveryID string          `json:"d"`
	CallID     string          `json:"c"`
	Event      string          `json:"e"`
	Fields     json.RawMessage `json:"f"`
	Attempts   int             `json:"a,omitempty"`
	NextAt     int64           `json:"n"`
	CreatedAt  int64           `json:"t"`
}

// replayLines stores the journal's events as far as the outbox has room, in
// one transaction (one commit, and at most one checkpoint, for the whole
// replay), and returns how many it dropped beyond that.
func (db *DB) replayLines(ctx context.Context) (int, error) {
	f, err := os.Open(db.journal.path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	c := &db.outbox
	c.mu.Lock()
	defer c.mu.Unlock()
	c.known = false // count again after the replay
	dropped := 0
	err = db.inTx(ctx, func(tx *sql.Tx) error {
		var queued int
		if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM outbox").Scan(&queued); err != nil {
			return err
		}
		room := db.journal.limitOr() - queued
		r := bufio.NewReaderSize(f, maxJournalLine)
		batch := make([]replayLine, 0, replayBatch)
		put := func() error {
			n, err := replayBatchTx(ctx, tx, batch, room)
			room -= n
			batch = batch[:0]
			return err
		}
		for {
			if room-len(batch) <= 0 {
				if err := put(); err != nil {
					return err
				}
				if room <= 0 {
					n, err := countLines(r)
					dropped += n
					return err
				}
			}
			line, err := readJournalLine(r)
			if len(line) > 0 {
				var jl replayLine
				if json.Unmarshal(line, &jl) == nil && jl.DeliveryID != "" && len(jl.Fields) > 0 && jl.Fields[0] == '{' {
					batch = append(batch, jl)
				}
			}
			if err == io.EOF {
				return put()
			}
			if err != nil {
				return err
			}
			if len(batch) == replayBatch {
				if err := put(); err != nil {
					return err
				}
			}
		}
	})
	if err != nil {
		return 0, err
	}
	return dropped, nil
}

// readJournalLine returns the next whole line (without its newline), nil for
// a line longer than maxJournalLine (skipped to its end), and io.EOF at the
// end; a last line without newline is torn and returned as nil.
func readJournalLine(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadSlice('\n')
	switch {
	case err == nil:
		return line[:len(line)-1], nil
	case errors.Is(err, bufio.ErrBufferFull):
		for errors.Is(err, bufio.ErrBufferFull) {
			_, err = r.ReadSlice('\n')
		}
		return nil, err
	default:
		return nil, err // io.EOF with a torn line, or a read error
	}
}

// countLines counts the whole lines left in r without parsing them.
func countLines(r *bufio.Reader) (int, error) {
	n := 0
	buf := make([]byte, 256<<10)
	for {
		k, err := r.Read(buf)
		n += bytes.Count(buf[:k], []byte{'\n'})
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// replayBatchTx puts the events of batch that the outbox and the delivery
// log do not have yet (nor batch itself, earlier) into the outbox, at most
// room of them, and returns how many it stored.
func replayBatchTx(ctx context.Context, tx *sql.Tx, batch []replayLine, room int) (int, error) {
	if len(batch) == 0 || room <= 0 {
		return 0, nil
	}
	ids := make([]any, 0, len(batch))
	for _, e := range batch {
		ids = append(ids, e.DeliveryID)
	}
	in := "(?" + strings.Repeat(", ?", len(batch)-1) + ")"
	rows, err := tx.QueryContext(ctx, "SELECT delivery_id FROM outbox WHERE delivery_id IN "+in+
		" UNION ALL SELECT delivery_id FROM deliveries WHERE delivery_id IN "+in, append(ids, ids...)...)
	if err != nil {
		return 0, err
	}
	known := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, err
		}
		known[id] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	args := make([]any, 0, 7*min(len(batch), room))
	n := 0
	for _, e := range batch {
		if known[e.DeliveryID] || n == room {
			continue
		}
		known[e.DeliveryID] = true // a line repeated in the journal (a corrupt file) goes in once
		args = append(args, e.DeliveryID, e.CallID, e.Event, string(e.Fields), e.Attempts, e.NextAt, e.CreatedAt)
		n++
	}
	for i := 0; i < n; i += outboxInsertRows {
		k := min(outboxInsertRows, n-i)
		q := `INSERT INTO outbox (delivery_id, call_id, event, fields, attempts, next_at, created_at) VALUES ` +
			strings.Repeat("(?, ?, ?, ?, ?, ?, ?), ", k-1) + "(?, ?, ?, ?, ?, ?, ?)"
		if _, err := tx.ExecContext(ctx, q, args[7*i:7*(i+k)]...); err != nil {
			return 0, err
		}
	}
	return n, nil
}
