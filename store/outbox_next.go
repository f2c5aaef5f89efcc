package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// NextOutboxAt is the earliest retry time after now in the outbox (a failed
// event's next_at), and false when no event waits for a later time. The
// webhook sender sleeps until then instead of looking at the outbox every
// second (issue 20: an idle phone woke for nothing). Events due already are
// not counted: DueOutbox returns those (next_at <= now), so the two together
// see every event once.
func (db *DB) NextOutboxAt(ctx context.Context, now time.Time) (time.Time, bool, error) {
	sdb, err := db.raw()
	if err != nil {
		return time.Time{}, false, fmt.Errorf("next outbox retry: %w", err)
	}
	var next sql.NullInt64
	if err := sdb.QueryRowContext(ctx, `SELECT MIN(next_at) FROM outbox WHERE next_at > ?`, ts(now)).Scan(&next); err != nil {
		return time.Time{}, false, fmt.Errorf("next outbox retry: %w", err)
	}
	if !next.Valid {
		return time.Time{}, false, nil
	}
	return fromTS(next.Int64), true, nil
}
