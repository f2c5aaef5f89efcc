package store

import (
	"context"
	"fmt"
)

// HistoryByCall returns the history entry of a call, by the call's id (the
// recording and transcript pipeline knows the call, not the entry).
func (db *DB) HistoryByCall(ctx context.Context, callID string) (HistoryEntry, error) {
	var r historyRow
	if err := db.g.WithContext(ctx).Where("call_id = ?", callID).Take(&r).Error; err != nil {
		return HistoryEntry{}, notFound(err, "history entry of call", callID)
	}
	e, err := db.GetHistory(ctx, r.ID)
	if err != nil {
		return HistoryEntry{}, fmt.Errorf("history of call %s: %w", callID, err)
	}
	return e, nil
}

// HistoryByCalls returns the history entries of these calls, by the calls'
// ids, with their tags, in one statement (an indexed lookup each: call_id
// is unique); calls without one are left out, and the order is not that
// of callIDs. The recordings pages name each recording's call this way:
// they looked for it among the newest 1,000 entries, so a recording of an
// older call lost its number, outcome and tags there.
func (db *DB) HistoryByCalls(ctx context.Context, callIDs []string) ([]HistoryEntry, error) {
	rows, err := db.historyRowsOn(ctx, "h.call_id = j.value", callIDs, len(callIDs))
	if err != nil {
		return nil, fmt.Errorf("history of calls: %w", err)
	}
	out := make([]HistoryEntry, len(rows))
	for i, r := range rows {
		out[i] = r.Entry
	}
	return out, nil
}
