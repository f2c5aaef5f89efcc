package httplimit

import (
	"io"
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
// runs only while connections are open, and ticks only while they are
// used: after a tick in which no read or write began, it sleeps until the
// earliest deadline of a read or write under way (a connection waiting
// for its next request, a blocked write) and the next read or write wakes
// it. An open phone page keeps connections open through a whole call (its
// event stream, kept-alive fetches); a sweep ticking 4 times a second on
// each server woke the process about 35 times a second, a fifth of what a
// call's 100 packets a second cost (issue 20). While the sweep sleeps the
// coarse clock stands still, so the first read or write after the pause
// reads the real clock before it stamps a deadline.
func (l Limits) Listener(ln net.Listener) net.Listener {
	l = l.withDefaults()
	tick := min(l.Read, l.Write, l.Idle) / 10
	tick = max(min(tick, 250*time.Millisecond), 10*time.Millisecond)
	return &listener{Listener: ln, read: l.Read + tick, idle: l.Idle + tick, write: l.Write + tick, tick: tick,
		conns: map[*conn]struct{}{}, wake: make(chan struct{}, 1)}
}

type listener struct {
	net.Listener
	read, idle, write time.Duration // the limits, a tick added (the clock lags by up to one)
	tick              time.Duration
	now               atomic.Int64 // the coarse clock: Unix ns, advanced by the sweep
	active            atomic.Bool  // a read or write began since the sweep's last tick
	asleep            atomic.Bool  // the sweep waits for the earliest deadline: now stands still
	wake              chan struct{}
	sweeps            atomic.Int64 // how often the sweep ran (tests)

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
// deadlines, every tick while reads and writes begin, else at the earliest
// deadline of one under way, until no connection is left.
func (ln *listener) sweep() {
	t := time.NewTimer(ln.tick)
	defer t.Stop()
	var due []*conn
	for {
		var now time.Time
		select {
		case now = <-t.C:
		case <-ln.wake:
			now = time.Now()
		}
		ln.sweeps.Add(1)
		due = due[:0]
		n := now.UnixNano()
		ln.mu.Lock()
		ln.now.Store(n)
		if len(ln.conns) == 0 {
			ln.running = false
			ln.asleep.Store(false)
			ln.mu.Unlock()
			return
		}
		next := int64(0) // the earliest deadline still to come of a read or write under way
		for c := range ln.conns {
			if c.late(&c.reading, &c.rd, n) || c.late(&c.writing, &c.wd, n) {
				due = append(due, c)
				continue
			}
			next = c.next(&c.reading, &c.rd, next)
			next = c.next(&c.writing, &c.wd, next)
		}
		sleep := ln.tick
		if !ln.active.Swap(false) {
			// A quiet tick: sleep. A read or write that began meanwhile
			// either saw asleep (and wakes this loop) or set active,
			// which is looked at again after asleep is set.
			ln.asleep.Store(true)
			if ln.active.Load() {
				ln.asleep.Store(false)
			} else if next == 0 {
				sleep = time.Hour // nothing under way: until a read or write wakes it
			} else {
				sleep = time.Duration(next - n)
			}
		}
		t.Reset(sleep)
		ln.mu.Unlock()
		for _, c := range due {
			c.cut(n)
		}
	}
}

// clock is the coarse clock for a deadline stamped now. A read or write
// (or a caller's deadline) keeps the sweep ticking, and wakes it from its
// sleep, in which the coarse clock stands still: then the real one is read,
// and stored before the sweep is marked awake, so whoever sees it awake
// reads a clock at most a tick old.
func (ln *listener) clock() int64 {
	if !ln.active.Load() {
		ln.active.Store(true)
	}
	if !ln.asleep.Load() {
		return ln.now.Load()
	}
	n := time.Now().UnixNano()
	ln.now.Store(n)
	if ln.asleep.CompareAndSwap(true, false) {
		ln.poke()
	}
	return n
}

// poke wakes the sweep.
func (ln *listener) poke() {
	select {
	case ln.wake <- struct{}{}:
	default:
	}
}

// conn keeps its read and write deadlines (Unix nanoseconds, 0: none) and
// whether a read or write is under way.
type conn struct {
	net.Conn
	ln               *listener
	rd, wd           atomic.Int64
	reading, writing atomic.Bool
	answered         atomic.Bool  // written since the last read that brought bytes: the next read waits for a request
	manual           atomic.Bool  // the caller set the read deadline: rd is the caller's
	linger           atomic.Bool  // Linger: Close ends the connection in stages
	lingerFor        atomic.Int64 // ... reading at most this long (ns)
	lingerUpTo       atomic.Int64 // ... and this many bytes
	closed           sync.Once
}

// next is the earlier of soon and the deadline of the read (or write)
// under way (0: none).
func (c *conn) next(busy *atomic.Bool, deadline *atomic.Int64, soon int64) int64 {
	d := deadline.Load()
	if !busy.Load() || d == 0 || (soon != 0 && soon <= d) {
		return soon
	}
	return d
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
	now := c.ln.clock()
	if wait { // waiting for the next request
		c.rd.Store(now + int64(c.ln.idle))
	}
	c.reading.Store(true)
	n, err := c.Conn.Read(b)
	c.reading.Store(false)
	if wait && n > 0 && !c.manual.Load() { // its first bytes: the request has Read from now
		c.answered.Store(false)
		c.rd.Store(c.ln.clock() + int64(c.ln.read))
	}
	return n, err
}

// Write gives each write its own deadline, Write from its start.
func (c *conn) Write(b []byte) (int, error) {
	c.answered.Store(true)
	c.wd.Store(c.ln.clock() + int64(c.ln.write))
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
	c.ln.clock() // a sleeping sweep looks again: this deadline may be its earliest
	return nil
}

// SetWriteDeadline is a no-op: every write has the listener's deadline
// (fasthttp's WriteTimeout is off, Apply).
func (c *conn) SetWriteDeadline(time.Time) error { return nil }

func (c *conn) SetDeadline(t time.Time) error { return c.SetReadDeadline(t) }

func (c *conn) Close() error {
	err := net.ErrClosed
	c.closed.Do(func() {
		if c.linger.Load() {
			if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok && cw.CloseWrite() == nil {
				go c.lingerClose()
				err = nil
				return
			}
		}
		c.release()
		err = c.Conn.Close()
	})
	return err
}

// release takes the connection off the listener's count.
func (c *conn) release() {
	c.ln.mu.Lock()
	delete(c.ln.conns, c)
	if len(c.ln.conns) == 0 {
		c.ln.poke() // a sleeping sweep ends now, not at its deadline
	}
	c.ln.mu.Unlock()
}

// lingerTime and lingerBytes bound what a lingering close reads and drops.
const (
	lingerTime  = time.Second
	lingerBytes = 1 << 20
)

// Linger has nc's Close end the connection in stages (RFC 9112 9.6): its
// answer was written without the request's body being read (fasthttp
// refuses a body over its limit unread, 413), and a close with bytes
// unread has the kernel send a reset, which reached the client while it
// was still sending the body, so it saw "connection reset by peer"
// instead of the 413. Close then sends FIN, reads and drops what the
// client still sends, for at most lingerTime and lingerBytes, and only
// then closes; the connection counts against the listener's limit until
// then. Connections of other kinds than the listener's are left alone.
func Linger(nc net.Conn) { LingerFor(nc, lingerBytes, lingerTime) }

// LingerFor is Linger with other bounds: a client the server trusts (the
// phone page's own session) may be let finish a larger body, so that a
// browser that reads no answer before its upload ends (Firefox) reads it.
func LingerFor(nc net.Conn, upTo int64, d time.Duration) {
	if c, ok := nc.(*conn); ok {
		c.lingerUpTo.Store(upTo)
		c.lingerFor.Store(int64(d))
		c.linger.Store(true)
	}
}

func (c *conn) lingerClose() {
	_ = c.Conn.SetReadDeadline(time.Now().Add(time.Duration(c.lingerFor.Load())))
	_, _ = io.CopyN(io.Discard, c.Conn, c.lingerUpTo.Load())
	c.release()
	_ = c.Conn.Close()
}
