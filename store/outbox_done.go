package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// OutboxDone ends event seq: it leaves the outbox and gets a line in the
// delivery log (replacing an older line of the same DeliveryID, as after a
// resend). The call counts as one more attempt. The log keeps the newest
// deliveryLogSize (1000) lines (see trimLog).
func (db *DB) OutboxDone(ctx context.Context, seq int64, status int, delivered bool, errText string) error {
	c := &db.outbox
	c.mu.Lock()
	defer c.mu.Unlock()
	var trim bool
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		// Single-row statements only: inside a transaction, INSERT ...
		// SELECT or a multi-row DELETE would each keep a statement journal,
		// which costs more than the statements themselves.
		var r deliveryRow
		err := tx.QueryRowContext(ctx, "SELECT delivery_id, call_id, event, attempts, fields FROM outbox WHERE seq = ?", seq).
			Scan(&r.DeliveryID, &r.CallID, &r.Event, &r.Attempts, &r.Fields)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("outbox event %q: %w", fmt.Sprint(seq), ErrNotFound)
		} else if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM outbox WHERE seq = ?", seq); err != nil {
			return err
		}
		r.Status, r.Attempts, r.LastError, r.Delivered, r.At = status, r.Attempts+1, errText, delivered, time.Now().UnixNano()
		res, err := tx.ExecContext(ctx, logInsertSQL, r.DeliveryID, r.CallID, r.Event, r.Status, r.Attempts,
			r.LastError, r.Delivered, r.At, r.Fields)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 { // a resend: the line is there already; it goes to the end (the log's order is rowid's)
			if _, err := tx.ExecContext(ctx, "DELETE FROM deliveries WHERE delivery_id = ?", r.DeliveryID); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, logInsertSQL, r.DeliveryID, r.CallID, r.Event, r.Status, r.Attempts,
				r.LastError, r.Delivered, r.At, r.Fields); err != nil {
				return err
			}
		}
		trim, err = db.trimLog(ctx, tx)
		return err
	})
	switch {
	case err == nil:
		c.n--
		if trim {
			c.logTrimmed, c.logAdds = true, 0
		} else {
			c.logAdds++
		}
	case errors.Is(err, ErrNotFound):
	default:
		c.known = false // a failed commit may still have happened: count again
		c.logTrimmed = false
		err = fmt.Errorf("outbox done %d: %w", seq, err)
	}
	return err
}

const logInsertSQL = `INSERT INTO deliveries
	(delivery_id, call_id, event, status, attempts, last_error, delivered, at, fields)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (delivery_id) DO NOTHING`

// The delivery log is in the order its lines were written (rowid: SQLite
// gives each new row one more than the largest), not by their time (at):
// after the wall clock stepped back, new lines had earlier times than the
// lines before the step, so the list showed them last and the trimming of
// a full log removed them first, as soon as they were written.

// trimLog keeps the delivery log to its bound, in tx, and says whether it
// trimmed it to the bound. The log keeps its newest deliveryLog lines: each
// OutboxDone adds at most one, and the log is trimmed back to deliveryLog
// lines once it may have gained more than 1% of that (every 11th call for
// 1000 lines), which costs far less than removing one line per call. Bounds
// under 100 leave no slack: then the oldest line goes whenever there are
// more. Deliveries never lists more than deliveryLog lines.
func (db *DB) trimLog(ctx context.Context, tx *sql.Tx) (bool, error) {
	c := &db.outbox
	slack := db.deliveryLog / 100
	switch {
	case c.logTrimmed && c.logAdds+1 <= slack:
		return false, nil
	case c.logTrimmed && slack == 0:
		// A single-row delete: no statement journal in the transaction.
		if _, err := tx.ExecContext(ctx, pruneOldestSQL, db.deliveryLog); err != nil {
			return false, fmt.Errorf("prune delivery log: %w", err)
		}
	default:
		if _, err := tx.ExecContext(ctx, pruneLogSQL, db.deliveryLog); err != nil {
			return false, fmt.Errorf("prune delivery log: %w", err)
		}
	}
	return true, nil
}

const (
	pruneOldestSQL = `DELETE FROM deliveries WHERE rowid = (SELECT rowid FROM deliveries ORDER BY rowid LIMIT 1)
	AND (SELECT COUNT(*) FROM deliveries) > ?1`
	pruneLogSQL = `DELETE FROM deliveries WHERE rowid IN (SELECT rowid FROM deliveries
	ORDER BY rowid LIMIT max(0, (SELECT COUNT(*) FROM deliveries) - ?1))`
)
