package httplimit

import (
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Listener wraps ln so that every write on an accepted connection must make
// progress within l.Write: a client that stops reading (or a peer that is
// gone) frees the connection instead of holding a goroutine and a file
// descriptor for ever. It also takes over the read deadlines fasthttp sets
// (Read, Idle).
//
// The deadlines are kept by the listener's own clock instead of the
// runtime's poller (issue 20): fasthttp set a read deadline twice per
// request on a kept-alive connection and this wrapper a write deadline per
// write, each a change of a runtime timer under its lock, about 6 % of the
// CPU of a small GET under load. Here setting a deadline is an atomic store;
// a sweep every tick (at most 250 ms, a tenth of the shortest limit when
// that is less) looks for a connection blocked in a read or write past its
// deadline and cuts that read or write (a deadline in the past on the real
// connection), as the poller would have, up to a tick late. The sweep runs
// only while connections are open.
func (l Limits) Listener(ln net.Listener) net.Listener {
	l = l.withDefaults()
	tick := min(l.Read, l.Write, l.Idle) / 10
	tick = max(min(tick, 250*time.Millisecond), 10*time.Millisecond)
	return &listener{Listener: ln, write: l.Write, tick: tick, conns: map[*conn]struct{}{}}
}

type listener struct {
	net.Listener
	write time.Duration
	tick  time.Duration

	mu      sync.Mutex
	conns   map[*conn]struct{}
	running bool // the sweep goroutine is running
}

func (ln *listener) Accept() (net.Conn, error) {
	c, err := ln.Listener.Accept()
	if err != nil {
		return nil, err
	}
	lc := &conn{Conn: c, ln: ln}
	ln.mu.Lock()
	ln.conns[lc] = struct{}{}
	if !ln.running {
		ln.running = true
		go ln.sweep()
	}
	ln.mu.Unlock()
	return lc, nil
}

// sweep cuts the reads and writes that passed their deadlines, every tick,
// until no connection is left.
func (ln *listener) sweep() {
	t := time.NewTicker(ln.tick)
	defer t.Stop()
	var due []*conn
	for now := range t.C {
		due = due[:0]
		ln.mu.Lock()
		if len(ln.conns) == 0 {
			ln.running = false
			ln.mu.Unlock()
			return
		}
		n := now.UnixNano()
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
	c.reading.Store(true)
	n, err := c.Conn.Read(b)
	c.reading.Store(false)
	return n, err
}

// Write gives each write its own deadline, l.Write from its start.
func (c *conn) Write(b []byte) (int, error) {
	c.wd.Store(time.Now().Add(c.ln.write).UnixNano())
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
