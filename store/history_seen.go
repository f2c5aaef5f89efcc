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
// missed calls before it are no longer counted (issue 16 item 5). The look
// is noted by the entries as they are then, not by the clock alone (0023):
// seq, the last entry written, and open_from, the first still open (a call
// ringing while History is looked at is not seen as missed then). Only the
// entries from open_from to seq are told apart by at: those that ended
// after it were still open at the look. So after the wall clock stepped
// back (NTP correcting a clock that ran ahead, the person setting it) a
// call missed now counts, and a look notes the time it is now, though an
// earlier look's time lies ahead: it was kept (max) before, and a call that
// rang during a look after the step and was missed did not count.
func (db *DB) MarkHistorySeen(ctx context.Context, at time.Time) error {
	sdb, err := db.raw()
	if err == nil {
		_, err = sdb.ExecContext(ctx, `UPDATE history_seen SET at = ?,
			seq = max(seq, (SELECT coalesce(max(seq), 0) FROM history)),
			open_from = coalesce((SELECT min(seq) FROM history WHERE open = 1), (SELECT coalesce(max(seq), 0) + 1 FROM history))
			WHERE id = 1`, ts(at))
	}
	if err != nil {
		return fmt.Errorf("mark history seen: %w", err)
	}
	return nil
}

// MissedSinceSeen counts the missed calls written after the history was
// last seen, and those still open then that ended after it (a call ringing
// while History was looked at is not seen as missed then), whatever the
// wall clock did: by the clock alone, a call missed after it stepped back
// ended "before" the look and was not counted, the badge said nothing. The
// outcome index narrows it to the missed calls.
func (db *DB) MissedSinceSeen(ctx context.Context) (int, error) {
	sdb, err := db.raw()
	if err != nil {
		return 0, fmt.Errorf("missed calls: %w", err)
	}
	var n int
	err = sdb.QueryRowContext(ctx, `SELECT count(*) FROM history h, history_seen s
		WHERE s.id = 1 AND h.outcome = 'missed' AND (h.seq > s.seq OR (h.seq >= s.open_from AND h.ended_at > s.at))`).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("missed calls: %w", err)
	}
	return n, nil
}
