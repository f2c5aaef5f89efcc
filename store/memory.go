package store

import (
	"context"

	sqlite3 "modernc.org/sqlite/lib"
)

// ReleaseMemory asks SQLite to free what its connections hold and do not
// need: the pages of their page caches (sqlite3_db_release_memory, what
// PRAGMA shrink_memory does). After a burst of calls the writer's cache is
// full of the pages those calls wrote (issue 20: RSS back within 2 MB of
// idle); they are read back from the file, or the page cache of the
// system, when wanted. Meant for a quiet moment: the next write reads its
// pages again. A connection that is not open is not opened.
func (db *DB) ReleaseMemory(ctx context.Context) {
	db.hot.mu.Lock()
	open := db.hot.conn != nil && !db.hot.off
	db.hot.mu.Unlock()
	sdb, err := db.raw()
	if err != nil {
		return
	}
	if open {
		_ = db.hot.with(ctx, sdb, func(c hotConn) { sqlite3.Xsqlite3_db_release_memory(c.rc.tls, c.rc.db) })
	}
	// One of the pool's idle connections (database/sql gives no way to
	// reach each); the search index is written on them.
	_, _ = sdb.ExecContext(ctx, "PRAGMA shrink_memory")
}
