package httplimit

import (
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Listener wraps ln so that every accepted connection keeps the time limits
// of l:
//
//   - Read: a request (request line, headers, body) must arrive within it,
//     counted from the connection's open or, on a kept-alive connection,
//     from the first byte of the request;
//   - Idle: a kept-alive connection waits at most this for its next request;
//   - Write: every write must make progress within it, so a client that
//     stops reading (or a peer that is gone) frees the connection instead of
//     holding a goroutine and a file descriptor for ever.
//
// The connection tells a request from the wait for the next one by the
// order of its reads and writes: the first read after a write (the answer
// to the last request) waits for a new request and has Idle; once it brings
// bytes, the reads of that request have Read from then. (A request whose
// server writes before the body is read, as with 100-continue, gets
// Idle and then Read again for its body: still bounded.) Until the first
// write the connection's Read runs from its open. An explicit
// SetReadDeadline or SetDeadline (fasthttp clears them on a hijacked
// connection) hands the read deadline to the caller for good.
//
// The deadlines are kept by the listener's own clock instead of the
// runtime's poller (issue 20): fasthttp set a read deadline twice per
// request on a kept-alive connection and this wrapper a write deadline per
// write, each a clock read and a change of a runtime timer under its lock.
// Here a deadline is an atomic store of a time read from the listener's
// coarse clock, which a sweep advances every tick (at most 250 ms, a tenth
// of the shortest limit when that is less); the sweep also looks for a
// connection blocked in a read or write past its deadline and cuts that
// read or write (a deadline in the past on the real connection), as the
// poller would have. Deadlines are stamped a tick late, so a read or write
// is never cut before its limit, and at most two ticks after it. The sweep
// runs only while connections are open.
func (l Limits) Listener(ln net.Listener) net.Listener {
	l = l.withDefaults()
	tick := min(l.Read, l.Write, l.Idle) / 10
	tick = max(min(tick, 250*time.Millisecond), 10*time.Millisecond)
	return &listener{Listener: ln, read: l.Read + tick, idle: l.Idle + tick, write: l.Write + tick, tick: tick,
		conns: map[*conn]struct{}{}}
}

type listener struct {
	net.Listener
	read, idle, write time.Duration // the limits, a tick added (the clock lags by up to one)
	tick              time.Duration
	now               atomic.Int64 // the coarse clock: Unix ns, advanced by the sweep

	mu      sync.Mutex
	conns   map[*conn]struct{}
	running bool // the sweep goroutine is running
}

func (ln *listener) Accept() (net.Conn, error) {
	c, err := ln.Listener.Accept()
	if err != nil {
		return nil, err
	}
	now := time.Now().UnixNano()
	lc := &conn{Conn: c, ln: ln}
	lc.rd.Store(now + int64(ln.read))
	ln.mu.Lock()
	ln.now.Store(now) // the sweep may have been asleep: the clock starts from here
	ln.conns[lc] = struct{}{}
	if !ln.running {
		ln.running = true
		go ln.sweep()
	}
	ln.mu.Unlock()
	return lc, nil
}

// sweep advances the clock and cuts the reads and writes that passed their
// deadlines, every tick, until no connection is left.
func (ln *listener) sweep() {
	t := time.NewTicker(ln.tick)
	defer t.Stop()
	var due []*conn
	for now := range t.C {
		due = due[:0]
		n := now.UnixNano()
		ln.mu.Lock()
		ln.now.Store(n)
		if len(ln.conns) == 0 {
			ln.running = false
			ln.mu.Unlock()
			return
		}
		for c := range ln.conns {
			if c.late(&c.reading, &c.rd, n) || c.late(&c.writing, &c.wd, n) {
				due = append(due, c)
			}
		}
		ln.mu.Unlock()
		for _, c := range due {
			c.cut(n)
		}
	}
}

// conn keeps its read and write deadlines (Unix nanoseconds, 0: none) and
// whether a read or write is under way.
type conn struct {
	net.Conn
	ln               *listener
	rd, wd           atomic.Int64
	reading, writing atomic.Bool
	answered         atomic.Bool // written since the last read that brought bytes: the next read waits for a request
	manual           atomic.Bool // the caller set the read deadline: rd is the caller's
	closed           sync.Once
}

// late: a read (or write) is under way and its deadline has passed.
func (c *conn) late(busy *atomic.Bool, deadline *atomic.Int64, now int64) bool {
	d := deadline.Load()
	return busy.Load() && d != 0 && d <= now
}

// cut ends the late read or write with a timeout, as the poller does for a
// deadline that passes (a deadline in the past on the real connection).
func (c *conn) cut(now int64) {
	past := time.Unix(0, 1)
	if c.late(&c.reading, &c.rd, now) {
		_ = c.Conn.SetReadDeadline(past)
	}
	if c.late(&c.writing, &c.wd, now) {
		_ = c.Conn.SetWriteDeadline(past)
	}
}

func (c *conn) Read(b []byte) (int, error) {
	wait := !c.manual.Load() && c.answered.Load()
	if wait { // waiting for the next request
		c.rd.Store(c.ln.now.Load() + int64(c.ln.idle))
	}
	c.reading.Store(true)
	n, err := c.Conn.Read(b)
	c.reading.Store(false)
	if wait && n > 0 && !c.manual.Load() { // its first bytes: the request has Read from now
		c.answered.Store(false)
		c.rd.Store(c.ln.now.Load() + int64(c.ln.read))
	}
	return n, err
}

// Write gives each write its own deadline, Write from its start.
func (c *conn) Write(b []byte) (int, error) {
	c.answered.Store(true)
	c.wd.Store(c.ln.now.Load() + int64(c.ln.write))
	c.writing.Store(true)
	n, err := c.Conn.Write(b)
	c.writing.Store(false)
	return n, err
}

func stamp(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func (c *conn) SetReadDeadline(t time.Time) error {
	c.manual.Store(true)
	c.rd.Store(stamp(t))
	return nil
}

// SetWriteDeadline is a no-op: every write has the listener's deadline
// (fasthttp's WriteTimeout is off, Apply).
func (c *conn) SetWriteDeadline(time.Time) error { return nil }

func (c *conn) SetDeadline(t time.Time) error { return c.SetReadDeadline(t) }

func (c *conn) Close() error {
	c.closed.Do(func() {
		c.ln.mu.Lock()
		delete(c.ln.conns, c)
		c.ln.mu.Unlock()
	})
	return c.Conn.Close()
}
