package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// A page of GET /history is read in two steps (issue 20): the page walk, an
// index-only scan of history_page* (migration 0012) that yields each closed
// entry's rowid and rev stamp, and HistoryRows for the entries the caller has
// not rendered at that stamp yet, with their tags in the same statement.
// With the walk alone a page costs a few µs per entry instead of a full row
// scan, its tags query and its rendering.

// HistoryRef names one entry of a page: its rowid and the stamp that changes
// whenever the entry or its tags change.
type HistoryRef struct {
	Row int64
	Rev int64
}

// HistoryRow is an entry as HistoryRows read it, with its ref.
type HistoryRow struct {
	HistoryRef
	Entry HistoryEntry
}

// HistoryPage appends to into the refs of the newest f.Limit closed entries
// (calls in progress are in GET /calls), newest first. Only Limit, Missed and
// Declined of f are used; Missed and Declined together keep either.
func (db *DB) HistoryPage(ctx context.Context, f HistoryFilter, into []HistoryRef) ([]HistoryRef, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	limit = min(limit, maxHistoryPage)
	q := historyWalkFor(f)
	sdb, err := db.reader()
	if err != nil {
		return into, fmt.Errorf("history page: %w", err)
	}
	if db.rd != nil {
		n := len(into)
		into, err = db.walk.walk(ctx, q, limit, into)
		if !errors.Is(err, errHotOff) {
			if err != nil {
				return into, fmt.Errorf("history page: %w", err)
			}
			return into, nil
		}
		into = into[:n]
	}
	var args []any
	if walkBound(q) {
		args = append(args, limit)
	}
	rows, err := sdb.QueryContext(ctx, q, args...)
	if err != nil {
		return into, fmt.Errorf("history page: %w", err)
	}
	defer rows.Close()
	for n := 0; n < limit && rows.Next(); n++ {
		var r HistoryRef
		if err := rows.Scan(&r.Row, &r.Rev); err != nil {
			return into, fmt.Errorf("history page: %w", err)
		}
		into = append(into, r)
	}
	if err := rows.Err(); err != nil {
		return into, fmt.Errorf("history page: %w", err)
	}
	return into, nil
}

// historyWalks are the page walks: all closed entries, the missed ones,
// the declined ones, and the missed or declined ones. The first three have
// no LIMIT: the reader stops after the page's rows (the covering index
// yields them in order, history_walk_test.go checks the plans). A bound
// LIMIT would make SQLite plan the statement again whenever it is bound
// (it reads the value to plan), a literal one a statement per page size.
// The last one takes the limit as ?1, for its two inner walks.
var historyWalks = func() [4]string {
	const walk = "SELECT rowid, rev, seq, started_at, id FROM history WHERE "
	const order = " ORDER BY seq DESC, started_at DESC, id DESC"
	return [4]string{
		"SELECT rowid, rev FROM history WHERE open = 0" + order,
		"SELECT rowid, rev FROM history WHERE outcome = 'missed' AND open = 0" + order,
		"SELECT rowid, rev FROM history WHERE declined = 1 AND open = 0" + order,
		// Two index walks of at most limit entries each, merged; an OR
		// would walk every entry of the table.
		"SELECT rowid, rev FROM (SELECT * FROM (" + walk + "outcome = 'missed' AND open = 0" + order +
			" LIMIT ?1) UNION SELECT * FROM (" + walk + "declined = 1 AND open = 0" + order + " LIMIT ?1))" + order,
	}
}()

// walkBound says whether walk q takes the limit as ?1.
func walkBound(q string) bool { return strings.Contains(q, "?1") }

// tagSep joins a row's tag codes in HistoryRows; codes are lower-case
// letters, digits and dashes (taxonomy.go), never this control character.
const tagSep = "\x1f"

// HistoryRows reads the entries of these rowids with their tags (in code
// order), in one statement. Rowids no longer in the table are left out; the
// order of the answer is not that of rows.
func (db *DB) HistoryRows(ctx context.Context, rows []int64) ([]HistoryRow, error) {
	return db.historyRowsOn(ctx, "h.rowid = j.value", rows, len(rows))
}

// historyRowsOn reads the entries joined to the JSON array of keys by on
// (j.value is a key), with their tags, in one statement.
func (db *DB) historyRowsOn(ctx context.Context, on string, keys any, n int) ([]HistoryRow, error) {
	if n == 0 {
		return nil, nil
	}
	ids, err := json.Marshal(keys)
	if err != nil {
		return nil, err
	}
	sdb, err := db.reader()
	if err != nil {
		return nil, fmt.Errorf("history rows: %w", err)
	}
	q := "SELECT h.rowid, h.rev, " + prefixed("h.", historyColumns) +
		", (SELECT group_concat(code, char(31)) FROM (SELECT code FROM history_tags WHERE history_id = h.id ORDER BY code))" +
		" FROM json_each(?) j JOIN history h ON " + on
	res, err := sdb.QueryContext(ctx, q, string(ids))
	if err != nil {
		return nil, fmt.Errorf("history rows: %w", err)
	}
	defer res.Close()
	out := make([]HistoryRow, 0, n)
	for res.Next() {
		var r HistoryRow
		var tags sql.NullString
		if err := scanHistoryRow(res, &r, &tags); err != nil {
			return nil, fmt.Errorf("history rows: %w", err)
		}
		if tags.String != "" {
			r.Entry.Tags = strings.Split(tags.String, tagSep)
		}
		out = append(out, r)
	}
	if err := res.Err(); err != nil {
		return nil, fmt.Errorf("history rows: %w", err)
	}
	return out, nil
}

// prefixed qualifies each column of a comma-separated list.
func prefixed(p, cols string) string {
	parts := strings.Split(cols, ",")
	for i, c := range parts {
		parts[i] = p + strings.TrimSpace(c)
	}
	return strings.Join(parts, ", ")
}

// scanHistoryRow reads rowid, rev, historyColumns and the tags of one row.
func scanHistoryRow(rows *sql.Rows, r *HistoryRow, tags *sql.NullString) error {
	h := historyScan{e: &r.Entry}
	if err := rows.Scan(append(append([]any{&r.Row, &r.Rev}, h.dest()...), tags)...); err != nil {
		return err
	}
	h.fill()
	return nil
}

// historyWalkFor is the page walk of f's filter (historyWalks' order).
func historyWalkFor(f HistoryFilter) string {
	switch {
	case f.Missed && f.Declined:
		return historyWalks[3]
	case f.Missed:
		return historyWalks[1]
	case f.Declined:
		return historyWalks[2]
	}
	return historyWalks[0]
}
