package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"slices"
)

// historyColumns are the columns scanHistory reads, in its order.
const historyColumns = `id, call_id, seance_id, account_id, account, direction, number, uri, name, dialed,
	outcome, answered, duration_s, reason, answered_by, started_at, answered_at, ended_at, open, declined,
	jitter, loss, note, recording, secure, sip_status`

// historyScan holds the integer columns of one history row while it is
// scanned; dest lists the destinations of historyColumns in their order.
type historyScan struct {
	e                                *HistoryEntry
	answered, open, declined, secure int64
	started, answeredAt, ended       int64
}

func (h *historyScan) dest() []any {
	e := h.e
	return []any{&e.ID, &e.CallID, &e.SeanceID, &e.AccountID, &e.Account, &e.Direction, &e.Number,
		&e.URI, &e.Name, &e.Dialed, &e.Outcome, &h.answered, &e.DurationS, &e.Reason, &e.AnsweredBy,
		&h.started, &h.answeredAt, &h.ended, &h.open, &h.declined, &e.Jitter, &e.Loss, &e.Note, &e.Recording, &h.secure, &e.SIPStatus}
}

// fill sets the entry's fields that were scanned as integers (Tags empty).
func (h *historyScan) fill() {
	e := h.e
	e.Answered, e.Open, e.Declined = h.answered != 0, h.open != 0, h.declined != 0
	e.Secure = h.secure != 0
	e.StartedAt, e.AnsweredAt, e.EndedAt = fromTS(h.started), fromTS(h.answeredAt), fromTS(h.ended)
	e.Tags = []string{}
}

// scanHistory reads one row of historyColumns into an entry (Tags empty).
func scanHistory(rows *sql.Rows) (HistoryEntry, error) {
	var e HistoryEntry
	h := historyScan{e: &e}
	if err := rows.Scan(h.dest()...); err != nil {
		return HistoryEntry{}, err
	}
	h.fill()
	return e, nil
}

// pageTags fills in the tags of a page of entries, in code order, with one
// query: the page's ids go in as one JSON array, each probes the primary key
// of history_tags.
func (db *DB) pageTags(ctx context.Context, sdb *sql.DB, page []HistoryEntry) error {
	if len(page) == 0 {
		return nil
	}
	pos := make(map[string]int, len(page))
	ids := make([]string, len(page))
	for i, e := range page {
		pos[e.ID], ids[i] = i, e.ID
	}
	b, err := json.Marshal(ids)
	if err != nil {
		return err
	}
	rows, err := sdb.QueryContext(ctx,
		"SELECT t.history_id, t.code FROM json_each(?) j JOIN history_tags t ON t.history_id = j.value", string(b))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id, code string
		if err := rows.Scan(&id, &code); err != nil {
			return err
		}
		if i, ok := pos[id]; ok {
			page[i].Tags = append(page[i].Tags, code)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for i := range page {
		slices.Sort(page[i].Tags)
	}
	return nil
}
