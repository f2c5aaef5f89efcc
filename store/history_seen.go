package store

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// historyHooks are told after a call's entry is completed: the pages count
// missed calls from the history, so they count again once the entry is
// written, not when the call ends (the history subscriber writes after).
type historyHooks struct {
	mu  sync.Mutex
	fns []func()
}

// OnHistoryFinished has fn called after every completed history entry
// (FinishHistory succeeded). fn must not block.
func (db *DB) OnHistoryFinished(fn func()) {
	db.finished.mu.Lock()
	db.finished.fns = append(db.finished.fns, fn)
	db.finished.mu.Unlock()
}

func (h *historyHooks) tell() {
	h.mu.Lock()
	fns := h.fns
	h.mu.Unlock()
	for _, f := range fns {
		f()
	}
}

// MarkHistorySeen notes that the person looked at the history at at: the
// missed calls before it are no longer counted (issue 16 item 5). A moment
// older than the one kept changes nothing. The entries written until now
// are noted too (their highest seq, 0023), so that a missed call written
// after it counts though the wall clock stepped back below the moment kept.
func (db *DB) MarkHistorySeen(ctx context.Context, at time.Time) error {
	sdb, err := db.raw()
	if err == nil {
		_, err = sdb.ExecContext(ctx, `UPDATE history_seen SET at = max(at, ?),
			seq = max(seq, (SELECT coalesce(max(seq), 0) FROM history)) WHERE id = 1`, ts(at))
	}
	if err != nil {
		return fmt.Errorf("mark history seen: %w", err)
	}
	return nil
}

// MissedSinceSeen counts the missed calls that ended after the history was
// last seen (a call ringing while History was looked at is not seen as
// missed then), and those written after it, whatever their wall-clock end:
// after the clock stepped back (NTP correcting a clock that ran ahead, the
// person setting it) a call missed now ended "before" the look and was not
// counted, the badge said nothing. The outcome index narrows it to the
// missed calls.
func (db *DB) MissedSinceSeen(ctx context.Context) (int, error) {
	sdb, err := db.raw()
	if err != nil {
		return 0, fmt.Errorf("missed calls: %w", err)
	}
	var n int
	err = sdb.QueryRowContext(ctx, `SELECT count(*) FROM history
		WHERE outcome = 'missed' AND (ended_at > (SELECT at FROM history_seen WHERE id = 1)
			OR seq > (SELECT seq FROM history_seen WHERE id = 1))`).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("missed calls: %w", err)
	}
	return n, nil
}
