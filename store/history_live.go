package store

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// What happens during a call is written when it happens (issue 14): the
// answer when the call is answered, and the moment it was last known alive
// every few seconds (the heartbeat of live calls), so a crash loses neither
// the answer nor more than a heartbeat of talk time. Both are one short
// UPDATE on a kept prepared statement (sqlstmt.go).

// AnswerHistory records on the open entry of a call that it was answered, at
// that moment and by whom ("no": a person). An entry already closed or not
// (yet) written is left alone: the end writes the answer too.
func (db *DB) AnswerHistory(ctx context.Context, callID string, at time.Time, answeredBy string) error {
	args, err := answerArgs(callID, at, answeredBy)
	if err != nil {
		return err
	}
	if _, err := db.hotExec(ctx, answerUpdate, args...); err != nil {
		return fmt.Errorf("answer history of call %s: %w", callID, err)
	}
	return nil
}

// answerUpdate records an answer (AnswerHistory; the arguments of answerArgs).
const answerUpdate = `UPDATE history SET answered = 1, answered_at = ?1, answered_by = ?2,
		alive_at = max(alive_at, ?1) WHERE call_id = ?3 AND open = 1`

func answerArgs(callID string, at time.Time, answeredBy string) ([]any, error) {
	if callID == "" || at.IsZero() {
		return nil, fmt.Errorf("answer history: %w: empty call id or moment", ErrInvalid)
	}
	return []any{ts(at), answeredBy, callID}, nil
}

// maxAliveIDs bounds the call ids of one heartbeat statement (far below
// SQLite's parameter limit; a phone has a handful of calls).
const maxAliveIDs = 500

// HistoryAlive records that the open entries of these calls were alive at
// that moment: one statement for all of them.
func (db *DB) HistoryAlive(ctx context.Context, callIDs []string, at time.Time) error {
	if len(callIDs) == 0 {
		return nil
	}
	sdb, err := db.raw()
	if err != nil {
		return fmt.Errorf("history heartbeat: %w", err)
	}
	for len(callIDs) > 0 {
		k := min(len(callIDs), maxAliveIDs)
		args := make([]any, 0, k+1)
		args = append(args, ts(at))
		for _, id := range callIDs[:k] {
			args = append(args, id)
		}
		q := "UPDATE history SET alive_at = ? WHERE open = 1 AND call_id IN (?" + strings.Repeat(", ?", k-1) + ")"
		if _, err := sdb.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("history heartbeat: %w", err)
		}
		callIDs = callIDs[k:]
	}
	return nil
}
