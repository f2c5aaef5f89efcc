package store

import (
	"database/sql"
	"fmt"
	"net/url"
	"time"
)

// readConns is the size of the pool that serves history pages. Under load
// (64 connections asking GET /history) database/sql's default pool kept two
// connections idle and closed the rest after each query, so most requests
// opened a SQLite connection (file, schema parse, pragmas) for one read:
// that was most of the cost of a page (issue 20). A few connections kept
// open serve as many readers as the 2-core machines it runs on can use;
// WAL lets them read while the writer writes.
const readConns = 4

// readIdle closes reader connections unused this long, so their page
// caches are not held by an idle phone.
const readIdle = time.Minute

// openReaders opens the read pool: query-only connections (a bug that
// wrote through them fails instead of racing the writer), each with a
// small page cache (512 KiB: a page of history touches a few hundred KiB).
func openReaders(path string) (*sql.DB, error) {
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() +
		"?_pragma=busy_timeout(5000)&_pragma=query_only(1)&_pragma=cache_size(-512)"
	r, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open readers: %w", err)
	}
	r.SetMaxOpenConns(readConns)
	r.SetMaxIdleConns(readConns)
	r.SetConnMaxIdleTime(readIdle)
	return r, nil
}

// reader is the read pool, or the writer's handle when there is none.
func (db *DB) reader() (*sql.DB, error) {
	if db.rd != nil {
		return db.rd, nil
	}
	return db.raw()
}
