package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// ShiftOutbox moves the outbox's times by d (negative: back) after the wall
// clock stepped back by -d (server/webhook/clock.go): a retry time still
// ahead of now moves back by as much, never before now, and a creation time
// ahead of now (the event was made before the step) too, so the event keeps
// its age toward the 24 h limit. Times at or before now were set after the
// step, or are due anyway, and stay. It returns how many retry times moved.
func (db *DB) ShiftOutbox(ctx context.Context, now time.Time, d time.Duration) (int64, error) {
	var n int64
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE outbox SET next_at = MAX(next_at + ?, ?) WHERE next_at > ?`,
			int64(d), ts(now), ts(now))
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE outbox SET created_at = created_at + ? WHERE created_at > ?`, int64(d), ts(now))
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("shift outbox times: %w", err)
	}
	return n, nil
}

// NewestOutbox is the latest creation time in the outbox, and false when
// it is empty. One ahead of the clock tells that the clock went back since
// (server/webhook/clock.go).
func (db *DB) NewestOutbox(ctx context.Context) (time.Time, bool, error) {
	sdb, err := db.raw()
	if err != nil {
		return time.Time{}, false, fmt.Errorf("newest outbox event: %w", err)
	}
	var newest sql.NullInt64
	if err := sdb.QueryRowContext(ctx, `SELECT MAX(created_at) FROM outbox`).Scan(&newest); err != nil {
		return time.Time{}, false, fmt.Errorf("newest outbox event: %w", err)
	}
	if !newest.Valid {
		return time.Time{}, false, nil
	}
	return fromTS(newest.Int64), true, nil
}
