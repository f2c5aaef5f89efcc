package store

import (
	"context"
	"errors"
	"sync"
	"time"
	"unsafe"

	"modernc.org/libc"
	"modernc.org/libc/sys/types"
	sqlite3 "modernc.org/sqlite/lib"
)

// The page walk of GET /history runs on statements prepared once (issue 20).
// Through database/sql it cost about three times what SQLite's own walk of
// the index does: the driver parses and plans the statement again on every
// execution (a fifth of the CPU of a page under load), and every row comes
// back through driver.Value boxes. pageWalkers keeps a few connections of its
// own, opened here on SQLite's C interface rather than through the driver,
// with the walks prepared (sqlite3_prepare_v2 once, as hotStmts does for the
// writes), and reads the two integers of each row straight from SQLite.
// They are opened without SQLite's connection mutex (SQLITE_OPEN_NOMUTEX:
// one goroutine at a time uses a walker, as database/sql does with a
// connection); the driver's connections take it twice for every column
// read, which was half the cost of a walk with prepared statements. They
// are query-only, like the read pool. A walker unused for readIdle closes
// its connection: an idle phone holds no page cache for them.

// walkersMax is how many page walks run at once; the rest wait. The
// machines it runs on have two cores.
const walkersMax = 2

type pageWalkers struct {
	path string        // the database file
	sem  chan struct{} // a token per walker in use

	mu    sync.Mutex
	once  sync.Once
	free  []*walker // walkers not in use, each with its connection
	held  int       // walkers with a connection (free or in use)
	timer *time.Timer
	shut  bool // closed: no more connections opened
}

// walker is one connection with its prepared statements.
type walker struct {
	rc    rawConn
	stmts map[string]uintptr // sqlite3_stmt* by SQL text, on rc
	used  time.Time
}

// walkPragmas are the read pool's (db_read.go): a busy timeout, query only
// (a bug that wrote through them fails instead of racing the writer), a
// small page cache.
const walkPragmas = "PRAGMA busy_timeout = 5000; PRAGMA query_only = 1; PRAGMA cache_size = -512"

// walk appends to into the rowid and rev of the first limit rows q yields
// (q may take the limit as ?1, walkBound). errHotOff: the caller takes the
// ordinary way.
func (p *pageWalkers) walk(ctx context.Context, q string, limit int, into []HistoryRef) ([]HistoryRef, error) {
	p.once.Do(func() { p.sem = make(chan struct{}, walkersMax) })
	select {
	case p.sem <- struct{}{}:
	case <-ctx.Done():
		return into, ctx.Err()
	}
	defer func() { <-p.sem }()
	w, err := p.take()
	if err != nil {
		return into, err
	}
	into, err = w.run(q, limit, into)
	p.give(w)
	return into, err
}

// take hands out a free walker, or opens one.
func (p *pageWalkers) take() (*walker, error) {
	p.mu.Lock()
	if p.shut || p.path == "" {
		p.mu.Unlock()
		return nil, errHotOff
	}
	if n := len(p.free); n > 0 {
		w := p.free[n-1]
		p.free = p.free[:n-1]
		p.mu.Unlock()
		return w, nil
	}
	p.held++ // counted before the connection is there: sweep keeps running
	p.mu.Unlock()
	rc, err := openWalk(p.path)
	if err != nil {
		p.mu.Lock()
		p.held--
		p.mu.Unlock()
		return nil, errHotOff // the read pool serves this page
	}
	return &walker{rc: rc, stmts: map[string]uintptr{}}, nil
}

// openWalk opens a connection of a walker.
func openWalk(path string) (rawConn, error) {
	rc := rawConn{tls: libc.NewTLS()}
	name, err := libc.CString(path)
	if err != nil {
		rc.tls.Close()
		return rawConn{}, err
	}
	defer libc.Xfree(rc.tls, name)
	pp := libc.Xmalloc(rc.tls, types.Size_t(unsafe.Sizeof(uintptr(0))))
	if pp == 0 {
		rc.tls.Close()
		return rawConn{}, errors.New("open: out of memory")
	}
	defer libc.Xfree(rc.tls, pp)
	r := sqlite3.Xsqlite3_open_v2(rc.tls, name, pp, sqlite3.SQLITE_OPEN_READWRITE|sqlite3.SQLITE_OPEN_NOMUTEX, 0)
	b := libc.GoBytes(pp, int(unsafe.Sizeof(uintptr(0)))) // the sqlite3* SQLite wrote at pp
	rc.db = *(*uintptr)(unsafe.Pointer(&b[0]))
	if r == sqlite3.SQLITE_OK {
		var pragmas uintptr
		if pragmas, err = libc.CString(walkPragmas); err == nil {
			r = sqlite3.Xsqlite3_exec(rc.tls, rc.db, pragmas, 0, 0, 0)
			libc.Xfree(rc.tls, pragmas)
		}
	}
	if r != sqlite3.SQLITE_OK || err != nil {
		if err == nil {
			err = sqliteErr(rc, r)
		}
		if rc.db != 0 {
			sqlite3.Xsqlite3_close_v2(rc.tls, rc.db)
		}
		rc.tls.Close()
		return rawConn{}, err
	}
	return rc, nil
}

// give puts w back and arms the idle sweep.
func (p *pageWalkers) give(w *walker) {
	w.used = time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shut {
		p.drop(w)
		return
	}
	p.free = append(p.free, w)
	if p.timer == nil {
		p.timer = time.AfterFunc(readIdle, p.sweep)
	}
}

// sweep closes the walkers unused for readIdle; it runs again while any
// walker holds a connection.
func (p *pageWalkers) sweep() {
	p.mu.Lock()
	defer p.mu.Unlock()
	keep := p.free[:0]
	for _, w := range p.free {
		if time.Since(w.used) >= readIdle {
			p.drop(w)
		} else {
			keep = append(keep, w)
		}
	}
	clear(p.free[len(keep):])
	p.free = keep
	p.timer = nil
	if p.held > 0 && !p.shut {
		p.timer = time.AfterFunc(readIdle, p.sweep)
	}
}

// drop finalizes w's statements and closes its connection. p.mu is held.
func (p *pageWalkers) drop(w *walker) {
	for _, st := range w.stmts {
		sqlite3.Xsqlite3_finalize(w.rc.tls, st)
	}
	sqlite3.Xsqlite3_close_v2(w.rc.tls, w.rc.db)
	w.rc.tls.Close()
	w.stmts, w.rc = nil, rawConn{}
	p.held--
}

// close closes every free walker and those in use as they come back.
func (p *pageWalkers) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.shut = true
	for _, w := range p.free {
		p.drop(w)
	}
	p.free = nil
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
}

// open is how many walkers hold a connection (tests).
func (p *pageWalkers) open() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.held
}

// run binds the limit, steps q's statement through its rows and resets it.
func (w *walker) run(q string, limit int, into []HistoryRef) ([]HistoryRef, error) {
	rc := w.rc
	st, ok := w.stmts[q]
	if !ok {
		var err error
		if st, err = prepare(rc, q); err != nil {
			return into, err
		}
		w.stmts[q] = st
	}
	defer sqlite3.Xsqlite3_reset(rc.tls, st)
	if walkBound(q) {
		if r := sqlite3.Xsqlite3_bind_int64(rc.tls, st, 1, int64(limit)); r != sqlite3.SQLITE_OK {
			return into, sqliteErr(rc, r)
		}
	}
	for n := 0; n < limit; n++ {
		switch r := sqlite3.Xsqlite3_step(rc.tls, st); r {
		case sqlite3.SQLITE_ROW:
			into = append(into, HistoryRef{Row: sqlite3.Xsqlite3_column_int64(rc.tls, st, 0),
				Rev: sqlite3.Xsqlite3_column_int64(rc.tls, st, 1)})
		case sqlite3.SQLITE_DONE:
			return into, nil
		default:
			return into, sqliteErr(rc, r)
		}
	}
	return into, nil
}
