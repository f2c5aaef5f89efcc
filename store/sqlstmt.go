package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"unsafe"

	"modernc.org/libc"
	"modernc.org/libc/sys/types"
	sqlite3 "modernc.org/sqlite/lib"
)

// The writes every call makes (history start, answer, end: sipua's history
// subscriber) run on prepared statements kept for the life of one writer
// connection (issue 20). The driver (glebarez/go-sqlite) prepares every
// statement again on every execution, and preparing an INSERT or UPDATE of
// history compiles its triggers (the rev stamps of 0012, the search index of
// 0003) each time: about a third of the cost of a call's writes. database/sql
// has no way to keep a driver statement compiled, so hotStmts reaches the
// connection under the driver (sql.Conn.Raw) and keeps SQLite's own
// statement handles (sqlite3_prepare_v2 once; bind, step, reset each time).
// When the driver is not the one this was written for, every statement takes
// the ordinary way (ExecContext), only slower.

// hotStmts is the writer connection with its prepared statements.
type hotStmts struct {
	mu      sync.Mutex
	conn    *sql.Conn          // nil until the first use, and after a failure of the connection
	stmts   map[string]uintptr // sqlite3_stmt* by SQL text, on conn
	text    uintptr            // C memory the texts of a statement are bound from (run)
	textCap int
	off     bool // the driver's connection is not one this can use
}

// rawConn is what hotStmts needs of the driver's connection.
type rawConn struct {
	db  uintptr // sqlite3*
	tls *libc.TLS
}

// rawOf reads the SQLite handle and the libc thread state out of the
// driver's connection (unexported fields of glebarez/go-sqlite's conn:
// `db uintptr`, `tls *libc.TLS`); ok is false for any other shape.
func rawOf(dc any) (rawConn, bool) {
	v := reflect.ValueOf(dc)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct ||
		v.Type().Elem().PkgPath() != "modernc.org/sqlite" && v.Type().Elem().PkgPath() != "github.com/glebarez/go-sqlite" {
		return rawConn{}, false
	}
	s := v.Elem()
	db, tls := s.FieldByName("db"), s.FieldByName("tls")
	if !db.IsValid() || db.Kind() != reflect.Uintptr || !tls.IsValid() ||
		tls.Type() != reflect.TypeOf((*libc.TLS)(nil)) || db.Uint() == 0 || tls.IsNil() {
		return rawConn{}, false
	}
	return rawConn{db: uintptr(db.Uint()), tls: (*libc.TLS)(unsafe.Pointer(tls.Pointer()))}, true
}

// errHotOff: the fast way is not available; the caller takes the ordinary one.
var errHotOff = errors.New("prepared statements not available")

// exec runs one statement (no result rows) with args (string, int64, int,
// float64, bool) on the kept statement of q, and reports the rows changed.
func (h *hotStmts) exec(ctx context.Context, sdb *sql.DB, q string, args ...any) (int64, error) {
	var n int64
	var sqlErr error
	err := h.with(ctx, sdb, func(c hotConn) {
		n, sqlErr = c.exec(q, args...)
	})
	if err != nil {
		return 0, err
	}
	return n, sqlErr
}

// hotConn is the writer connection while hotStmts.with holds it.
type hotConn struct {
	h  *hotStmts
	rc rawConn
}

// exec runs q with args on its kept statement, as hotStmts.exec does.
func (c hotConn) exec(q string, args ...any) (int64, error) {
	return c.h.run(c.rc, q, args)
}

// inTx reports whether a transaction is open on the connection (an error
// such as a full disk can roll one back by itself: sqlite3_get_autocommit).
func (c hotConn) inTx() bool {
	return sqlite3.Xsqlite3_get_autocommit(c.rc.tls, c.rc.db) == 0
}

// with runs fn with the writer connection held, so several statements
// (one transaction of them) run on it with no other writer between.
// errHotOff: the fast way is not available (fn did not run).
func (h *hotStmts) with(ctx context.Context, sdb *sql.DB, fn func(c hotConn)) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.off {
		return errHotOff
	}
	if h.conn == nil {
		c, err := sdb.Conn(ctx)
		if err != nil {
			return err
		}
		// Its writes touch a few dozen pages (the row, its indexes, the
		// search index): a small page cache serves them and is all this
		// connection holds while the phone idles.
		if _, err := c.ExecContext(ctx, "PRAGMA cache_size = -256"); err != nil {
			_ = c.Close()
			return err
		}
		h.conn, h.stmts = c, map[string]uintptr{}
	}
	err := h.conn.Raw(func(dc any) error {
		rc, ok := rawOf(dc)
		if !ok {
			h.off = true
			return errHotOff
		}
		fn(hotConn{h: h, rc: rc})
		return nil
	})
	if err != nil { // errHotOff, or the connection is gone: a new one (and new statements) next time
		h.closeLocked()
		return err
	}
	return nil
}

// run binds, steps and resets the statement of q on rc, preparing it the
// first time.
func (h *hotStmts) run(rc rawConn, q string, args []any) (int64, error) {
	st, ok := h.stmts[q]
	if !ok {
		var err error
		if st, err = prepare(rc, q); err != nil {
			return 0, err
		}
		h.stmts[q] = st
	}
	defer func() {
		sqlite3.Xsqlite3_reset(rc.tls, st)
		sqlite3.Xsqlite3_clear_bindings(rc.tls, st)
	}()
	// The texts are copied into one buffer of the connection's, kept from
	// statement to statement, and bound SQLITE_STATIC (0: they stay there
	// until the reset above). A C string allocated and freed for each text
	// made libc's allocator map and unmap a page of memory per statement
	// (its pages are given back as soon as they are empty).
	need := 0
	for _, a := range args {
		if v, ok := a.(string); ok {
			need += len(v) + 1
		}
	}
	if need > h.textCap {
		if h.text != 0 {
			libc.Xfree(rc.tls, h.text)
			h.text, h.textCap = 0, 0
		}
		n := max(need, 1024)
		if h.text = libc.Xmalloc(rc.tls, types.Size_t(n)); h.text == 0 {
			return 0, errors.New("prepared statement: out of memory")
		}
		h.textCap = n
	}
	off := uintptr(0)
	for i, a := range args {
		k := int32(i + 1)
		var r int32
		switch v := a.(type) {
		case string:
			// "" is bound as '' and not NULL: its pointer is not 0.
			p := h.text + off
			if len(v) > 0 {
				libc.Xmemcpy(rc.tls, p, uintptr(unsafe.Pointer(unsafe.StringData(v))), types.Size_t(len(v)))
			}
			off += uintptr(len(v)) + 1
			r = sqlite3.Xsqlite3_bind_text(rc.tls, st, k, p, int32(len(v)), 0)
		case int64:
			r = sqlite3.Xsqlite3_bind_int64(rc.tls, st, k, v)
		case int:
			r = sqlite3.Xsqlite3_bind_int64(rc.tls, st, k, int64(v))
		case float64:
			r = sqlite3.Xsqlite3_bind_double(rc.tls, st, k, v)
		case bool:
			b := int64(0)
			if v {
				b = 1
			}
			r = sqlite3.Xsqlite3_bind_int64(rc.tls, st, k, b)
		default:
			return 0, fmt.Errorf("prepared statement: argument %d: type %T", k, a)
		}
		if r != sqlite3.SQLITE_OK {
			return 0, sqliteErr(rc, r)
		}
	}
	switch r := sqlite3.Xsqlite3_step(rc.tls, st); r {
	case sqlite3.SQLITE_DONE, sqlite3.SQLITE_ROW:
		return int64(sqlite3.Xsqlite3_changes(rc.tls, rc.db)), nil
	default:
		return 0, sqliteErr(rc, r)
	}
}

func prepare(rc rawConn, q string) (uintptr, error) {
	psql, err := libc.CString(q)
	if err != nil {
		return 0, err
	}
	defer libc.Xfree(rc.tls, psql)
	pp := libc.Xmalloc(rc.tls, types.Size_t(unsafe.Sizeof(uintptr(0))))
	if pp == 0 {
		return 0, errors.New("prepare: out of memory")
	}
	defer libc.Xfree(rc.tls, pp)
	if r := sqlite3.Xsqlite3_prepare_v2(rc.tls, rc.db, psql, -1, pp, 0); r != sqlite3.SQLITE_OK {
		return 0, sqliteErr(rc, r)
	}
	b := libc.GoBytes(pp, int(unsafe.Sizeof(uintptr(0)))) // the sqlite3_stmt* SQLite wrote at pp
	st := *(*uintptr)(unsafe.Pointer(&b[0]))
	if st == 0 {
		return 0, fmt.Errorf("prepare: no statement in %q", q)
	}
	return st, nil
}

// sqliteErr words a result code as the driver does (disk.go's IsDiskFull
// reads the words).
func sqliteErr(rc rawConn, r int32) error {
	return fmt.Errorf("%s: %s (%d)", libc.GoString(sqlite3.Xsqlite3_errstr(rc.tls, r)),
		libc.GoString(sqlite3.Xsqlite3_errmsg(rc.tls, rc.db)), r)
}

// close finalizes the statements and gives the connection back (before the
// pool is closed: a connection closed with statements left open would stay
// half-open inside SQLite).
func (h *hotStmts) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closeLocked()
}

func (h *hotStmts) closeLocked() {
	if h.conn == nil {
		return
	}
	if len(h.stmts) > 0 {
		_ = h.conn.Raw(func(dc any) error {
			if rc, ok := rawOf(dc); ok {
				for _, st := range h.stmts {
					sqlite3.Xsqlite3_finalize(rc.tls, st)
				}
			}
			return nil
		})
	}
	_ = h.conn.Close()
	h.conn, h.stmts = nil, nil
	if h.text != 0 {
		libc.Xfree(nil, h.text) // the statements bound to it are finalized
		h.text, h.textCap = 0, 0
	}
}

// hotExec runs q on a kept prepared statement, or the ordinary way when
// those are not available; it reports the rows changed.
func (db *DB) hotExec(ctx context.Context, q string, args ...any) (int64, error) {
	sdb, err := db.raw()
	if err != nil {
		return 0, err
	}
	n, err := db.hot.exec(ctx, sdb, q, args...)
	if !errors.Is(err, errHotOff) {
		return n, err
	}
	res, err := sdb.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
