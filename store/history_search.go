package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync/atomic"
)

// The search index of history (0003) is kept up to date in batches
// (0021, issue 20): a new entry, or one whose number, name or uri changed,
// is noted in history_search_pending by the triggers, and IndexHistorySearch
// puts what is noted into the index in one transaction. FTS5 writes a
// segment at every commit that touched the index, so a batch of a hundred
// entries costs about what one did alone; indexing each call's start on its
// own was half of that write's CPU.
//
// Who indexes: the history writer of the phone every few seconds
// (sipua, on the heartbeat's tick), and every search before it reads the
// index (ListHistory), so a search never misses an entry; when indexing
// fails (a full disk), the search also takes what is still noted by LIKE.

// searchNoted is set by the writes that may note entries (starts, ends,
// and at open for what a crash left noted): IndexHistorySearch looks at the
// table only then, so an idle phone asks the database nothing.
type searchNoted struct{ maybe atomic.Bool }

// IndexHistorySearch indexes the entries noted since the last time. It
// returns how many it indexed.
func (db *DB) IndexHistorySearch(ctx context.Context) (int, error) {
	if !db.searchNoted.maybe.Swap(false) {
		return 0, nil
	}
	var n int64
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO history_search (rowid, number, name, uri)
			SELECT h.rowid, h.number, h.name, h.uri FROM history_search_pending p JOIN history h ON h.rowid = p.row`)
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, "DELETE FROM history_search_pending")
		return err
	})
	if err != nil {
		db.searchNoted.maybe.Store(true) // still noted: the next call tries again
		return 0, fmt.Errorf("index history search: %w", err)
	}
	return int(n), nil
}

// noteSearch tells IndexHistorySearch that entries may be noted.
func (db *DB) noteSearch() { db.searchNoted.maybe.Store(true) }

// searchWhere is ListHistory's condition for a text of 3 or more
// characters (the trigram index's least), with its arguments: the index's
// matches, and the noted entries not yet in it by LIKE (none after a
// successful IndexHistorySearch: the table is empty).
func searchWhere(match, like string) (string, []any) {
	return `(rowid IN (SELECT rowid FROM history_search WHERE history_search MATCH ?)
		OR rowid IN (SELECT p.row FROM history_search_pending p JOIN history h ON h.rowid = p.row
			WHERE h.number LIKE ? ESCAPE '\' OR h.name LIKE ? ESCAPE '\' OR h.uri LIKE ? ESCAPE '\'))`,
		[]any{match, like, like, like}
}
