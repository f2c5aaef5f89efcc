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
// deliveryLogSize (1000) lines.
func (db *DB) OutboxDone(ctx context.Context, seq int64, status int, delivered bool, errText string) error {
	c := &db.outbox
	c.mu.Lock()
	defer c.mu.Unlock()
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
		} else if n == 0 { // a resend: the line is there already
			if _, err := tx.ExecContext(ctx, logUpdateSQL, r.DeliveryID, r.CallID, r.Event, r.Status, r.Attempts,
				r.LastError, r.Delivered, r.At, r.Fields); err != nil {
				return err
			}
		}
		prune := pruneOldestSQL
		if seq%100 == 0 {
			prune = pruneLogSQL
		}
		if _, err := tx.ExecContext(ctx, prune, db.deliveryLog); err != nil {
			return fmt.Errorf("prune delivery log: %w", err)
		}
		return nil
	})
	switch {
	case err == nil:
		c.n--
	case errors.Is(err, ErrNotFound):
	default:
		c.known = false // a failed commit may still have happened: count again
		err = fmt.Errorf("outbox done %d: %w", seq, err)
	}
	return err
}

const logInsertSQL = `INSERT INTO deliveries
	(delivery_id, call_id, event, status, attempts, last_error, delivered, at, fields)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (delivery_id) DO NOTHING`

const logUpdateSQL = `UPDATE deliveries SET call_id = ?2, event = ?3, status = ?4, attempts = ?5,
	last_error = ?6, delivered = ?7, at = ?8, fields = ?9 WHERE delivery_id = ?1`

// The delivery log keeps its newest deliveryLog lines. Each OutboxDone adds
// at most one line, so removing the oldest line (lowest at, found at the end
// of deliveries_at) while there are more keeps the bound with a single-row
// delete. Every 100th event (by Seq) the general form runs, which also trims
// a log that was longer before (a bound lowered since).
const (
	pruneOldestSQL = `DELETE FROM deliveries WHERE rowid = (SELECT rowid FROM deliveries ORDER BY at LIMIT 1)
	AND (SELECT COUNT(*) FROM deliveries) > ?1`
	pruneLogSQL = `DELETE FROM deliveries WHERE rowid IN (SELECT rowid FROM deliveries
	ORDER BY at, rowid LIMIT max(0, (SELECT COUNT(*) FROM deliveries) - ?1))`
)
