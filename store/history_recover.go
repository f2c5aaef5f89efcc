package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// Calls cut off by a crash (issue 14, "every call ends, everywhere"): at the
// next start each entry a crash left open is closed, and in the same
// transaction the webhook outbox gets the call's call-ended, so a crash
// during the closing (kill -9 loops) can neither lose that event nor send it
// twice. The event goes behind the call's earlier events: those the journal
// held are replayed into the outbox when the database opens, before this.

// InterruptedHistory returns the entries a crash left open, as
// CloseInterrupted will close them: ended at the last moment the phone knew
// the call alive (its heartbeat, its answer or its start), answered when the
// answer had been written, talk time up to that moment, and the outcome
// answered, or missed (incoming) or failed (outgoing). Reason is left to the
// caller. Oldest first.
func (db *DB) InterruptedHistory(ctx context.Context) ([]HistoryEntry, error) {
	sdb, err := db.raw()
	if err != nil {
		return nil, fmt.Errorf("interrupted history: %w", err)
	}
	rows, err := sdb.QueryContext(ctx, "SELECT call_id, alive_at FROM history WHERE open = 1 ORDER BY started_at, id")
	if err != nil {
		return nil, fmt.Errorf("interrupted history: %w", err)
	}
	type open struct {
		callID string
		alive  int64
	}
	var opens []open
	for rows.Next() {
		var o open
		if err := rows.Scan(&o.callID, &o.alive); err != nil {
			rows.Close()
			return nil, fmt.Errorf("interrupted history: %w", err)
		}
		opens = append(opens, o)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("interrupted history: %w", err)
	}
	out := make([]HistoryEntry, 0, len(opens))
	for _, o := range opens {
		e, err := db.HistoryByCall(ctx, o.callID)
		if err != nil {
			return nil, fmt.Errorf("interrupted history: %w", err)
		}
		last := e.StartedAt
		for _, t := range []time.Time{e.AnsweredAt, fromTS(o.alive)} {
			if t.After(last) {
				last = t
			}
		}
		e.EndedAt = last
		e.Answered = e.Answered || !e.AnsweredAt.IsZero()
		switch {
		case e.Answered:
			e.Outcome = "answered"
			if !e.AnsweredAt.IsZero() {
				e.DurationS = max(0, last.Sub(e.AnsweredAt).Seconds())
			}
		case e.Direction == "in":
			e.Outcome = "missed"
		default:
			e.Outcome = "failed"
		}
		out = append(out, e)
	}
	return out, nil
}

// CloseInterrupted closes the open entry of e.CallID with e's outcome,
// answer, talk time, reason and end, and stores evs in the outbox in the same
// transaction. It reports false (and stores nothing) when the entry was not
// open any more. The events are stored whatever the outbox's capacity: they
// are at most one per call that was live at the crash.
func (db *DB) CloseInterrupted(ctx context.Context, e HistoryEntry, evs []OutboxEvent) (bool, error) {
	c := &db.outbox
	c.mu.Lock()
	defer c.mu.Unlock()
	closed := false
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE history SET open = 0, outcome = ?, answered = ?, duration_s = ?,
			reason = ?, ended_at = ?, answered_at = ? WHERE call_id = ? AND open = 1`,
			e.Outcome, e.Answered, e.DurationS, e.Reason, ts(e.EndedAt), ts(e.AnsweredAt), e.CallID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		closed = true
		now := time.Now()
		for _, ev := range evs {
			b, err := json.Marshal(ev.Fields)
			if err != nil {
				return err
			}
			if ev.DeliveryID == "" {
				ev.DeliveryID = uuid.NewString()
			}
			if ev.CreatedAt.IsZero() {
				ev.CreatedAt = now
			}
			if ev.NextAt.IsZero() {
				ev.NextAt = now
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO outbox (delivery_id, call_id, event, fields, attempts,
				next_at, last_status, last_error, created_at) VALUES (?, ?, ?, ?, 0, ?, 0, '', ?)`,
				ev.DeliveryID, ev.CallID, ev.Event, string(b), ts(ev.NextAt), ts(ev.CreatedAt)); err != nil {
				return err
			}
		}
		return nil
	})
	c.known = false // count again: rows were added
	if err != nil {
		return false, fmt.Errorf("close interrupted call %s: %w", e.CallID, err)
	}
	return closed, nil
}
