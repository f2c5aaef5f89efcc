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
