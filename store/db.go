package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/glebarez/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// DB is the phone's SQLite database (softphone.db). It is safe for concurrent
// use. Rows are gorm structs private to this package; methods return the plain
// structs of types.go.
type DB struct {
	g           *gorm.DB
	deliveryLog int           // lines the delivery log keeps
	outbox      outboxCount   // events in the outbox (outbox.go)
	contacts    contactIndex  // contacts by number key (contacts_cache.go)
	finished    historyHooks  // told after each call's entry is completed (history_seen.go)
	journal     outboxJournal // events on their way into the outbox (outbox_journal.go)
	disk        diskState     // the disk-full state (disk.go)
	hjournal    histJournal   // history writes that waited for the disk (history_journal.go)
	rd          *sql.DB       // the read pool of history pages (db_read.go)
	hot         hotStmts      // the prepared statements of every call's writes (sqlstmt.go)
	walk        pageWalkers   // the prepared page walks of GET /history (history_walk.go)
	searchNoted searchNoted   // entries may wait for the search index (history_search.go)
}

// dsnPragmas are the connection settings of DEPENDENCIES.md: WAL, a busy
// timeout, and BEGIN IMMEDIATE so a read-then-write transaction takes the
// write lock at once instead of failing with SQLITE_BUSY when it upgrades.
const dsnPragmas = "_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)&_txlock=immediate" +
	// After a checkpoint the WAL is cut back to 4 MiB: what a burst or a
	// full disk made it grow to does not stay taken (issue 14).
	"&_pragma=journal_size_limit(4194304)"

// OpenDB opens (creating it if needed) the database at path and applies the
// migrations. A database written by a newer program gives ErrSchemaTooNew and
// is not changed.
func OpenDB(path string) (*DB, error) {
	// The database holds who called whom: keep it to the user (0600; SQLite
	// gives the -wal and -shm files the same mode).
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	_ = f.Close()
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + dsnPragmas
	open := func() (*gorm.DB, error) {
		return gorm.Open(sqlite.Open(dsn), &gorm.Config{
			Logger:                 logger.Discard,
			SkipDefaultTransaction: true,
			PrepareStmt:            true,
			NowFunc:                func() time.Time { return time.Now().UTC() },
		})
	}
	g, err := open()
	released := false
	if err != nil && releaseReserve(path) { // a full disk: the reserve makes room for the -shm (disk_reserve.go)
		released = true
		g, err = open()
	}
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, openErr(path, err))
	}
	removeLeftovers(filepath.Dir(path), ".disk-probe-*") // a probe a kill cut short (disk.go)
	db := &DB{g: g, deliveryLog: deliveryLogSize}
	db.journal.path = journalPath(path)
	db.hjournal.path = historyJournalPath(path)
	db.walk.path = path
	if err := migrate(g); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("migrate database %s: %w", path, openErr(path, err))
	}
	if released {
		db.setDiskFull(true) // the page says so at once; probes end it when space returns
	} else {
		keepReserve(path)
	}
	ctx, cancel := context.WithTimeout(context.Background(), replayTimeout)
	defer cancel()
	if db.rd, err = openReaders(path); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	db.replayJournal(ctx)                                // never stops the start: JournalReplay tells what happened
	db.hjournal.replayErr = db.replayHistoryJournal(ctx) // the same: HistoryJournalReplay
	db.noteSearch()                                      // what a crash left noted is indexed at the first chance
	return db, nil
}

// Close closes the database.
func (db *DB) Close() error {
	db.closeJournal()
	db.closeHistoryJournal()
	db.hot.close()
	db.walk.close()
	if db.rd != nil {
		_ = db.rd.Close()
	}
	sqlDB, err := db.g.DB()
	if err != nil {
		return fmt.Errorf("close database: %w", err)
	}
	if err := sqlDB.Close(); err != nil {
		return fmt.Errorf("close database: %w", err)
	}
	return nil
}

// SchemaVersion reports the number of migrations applied to the database.
func (db *DB) SchemaVersion(ctx context.Context) (int, error) {
	return readSchemaVersion(db.g.WithContext(ctx))
}

// ts turns a moment into the stored form: Unix nanoseconds, 0 for the zero time.
func ts(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// fromTS is the inverse of ts; moments come back in UTC.
func fromTS(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// notFound turns gorm's record-not-found into ErrNotFound with context.
func notFound(err error, what, id string) error {
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return fmt.Errorf("%s %q: %w", what, id, ErrNotFound)
	}
	return fmt.Errorf("%s %q: %w", what, id, err)
}
