package sipua

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/emiago/sipgo/sip"

	"github.com/softphone/softphone/internal/netguard"
)

// Bounds on what the network can make the phone hold (issue 12, item 4).
// Connections other hosts open to our SIP TCP (and TLS) listeners must
// carry a complete message within msgTimeout of opening or of their first
// byte after the last message, and are closed after connIdle without one.
// Connections we open (to the registrar) are not wrapped: they stay.
// A peer must also take what the phone writes: a write that waits longer
// than writeTimeout closes the connection, and nothing more is read from a
// connection while a write to it waits. Otherwise a peer that sends
// requests and never reads their answers held a goroutine (and a
// transaction) per request, without bound, for as long as it kept sending.
const (
	msgTimeout    = 32 * time.Second // 64*T1, the longest a transaction waits (RFC 3261 17.1.1.2)
	connIdle      = 10 * time.Minute
	writeTimeout  = 10 * time.Second
	maxConnsPerIP = 64
	maxConnsTotal = 1024
	maxRingingIn  = 8  // incoming calls ringing at once; more get 486
	maxLiveCalls  = 64 // calls at once (incoming.go); a new incoming one beyond gets 486
	// requests of a call's far end waiting for the call's goroutine
	// (handlers.go inDialog); more get 500 with Retry-After
	maxWaitingRequests = 16
	defaultRingFor     = 120 * time.Second // sip.ring_timeout_s when unset
)

// connGuard counts and times the inbound connections of one stack.
type connGuard struct {
	mu      sync.Mutex
	perIP   map[netip.Addr]int
	total   int
	byAddr  map[string]*guardedConn // by remote "ip:port", sipgo's message Source
	refused uint64                  // connections closed at once: over a limit
	log     *slog.Logger

	msgTimeout, idle, write atomic.Int64  // time.Duration; tests shorten them
	timedOut                atomic.Uint64 // connections closed by the clocks

	// trusted says whether an address is one of the accounts' servers:
	// their connections are taken even when strangers hold all
	// maxConnsTotal (a PBX opens one to our Contact to deliver a call).
	// Nil: none is. Set before the listeners serve.
	trusted func(netip.Addr) bool
}

func newConnGuard(log *slog.Logger) *connGuard {
	g := &connGuard{perIP: map[netip.Addr]int{}, byAddr: map[string]*guardedConn{}, log: log}
	g.setTimeouts(msgTimeout, connIdle)
	g.write.Store(int64(writeTimeout))
	return g
}

// setTimeouts sets how long a message may take and a connection may idle.
func (g *connGuard) setTimeouts(msg, idle time.Duration) {
	g.msgTimeout.Store(int64(msg))
	g.idle.Store(int64(idle))
}

// listener wraps a SIP stream listener (TCP, or TCP under TLS): failed
// Accepts are retried (netguard), connections over the limits are closed at
// once, the others are timed. Whoever adds a listener (TLS) wraps it here.
func (g *connGuard) listener(ln net.Listener) net.Listener {
	return &guardedListener{Listener: netguard.Retry(ln, g.log), g: g}
}

type guardedListener struct {
	net.Listener
	g *connGuard
}

func (l *guardedListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if gc := l.g.admit(c); gc != nil {
			return gc, nil
		}
		_ = c.Close()
	}
}

// admit counts a new connection; nil when it is over a limit.
func (g *connGuard) admit(c net.Conn) *guardedConn {
	ap, err := netip.ParseAddrPort(c.RemoteAddr().String())
	if err != nil {
		return nil
	}
	ip := ap.Addr().Unmap()
	server := g.trusted != nil && g.trusted(ip) // not under g.mu: it takes the phone's locks
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.total >= maxConnsTotal && !server || g.perIP[ip] >= maxConnsPerIP {
		g.refused++
		if g.refused == 1 || g.refused%1000 == 0 {
			g.log.Warn("SIP connection refused: too many open", "from", ip.String(), "refused", g.refused)
		}
		return nil
	}
	g.total++
	g.perIP[ip]++
	gc := &guardedConn{Conn: c, g: g, ip: ip, raddr: c.RemoteAddr().String(), last: time.Now()}
	gc.wdone = sync.NewCond(&gc.wmu)
	g.byAddr[gc.raddr] = gc
	return gc
}

func (g *connGuard) release(gc *guardedConn) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.total--
	if g.perIP[gc.ip]--; g.perIP[gc.ip] <= 0 {
		delete(g.perIP, gc.ip)
	}
	if g.byAddr[gc.raddr] == gc {
		delete(g.byAddr, gc.raddr)
	}
}

// onMessage is the transport layer's hook: a complete message came in on
// the connection from src, which restarts its clocks.
func (g *connGuard) onMessage(msg sip.Message) {
	switch msg.Transport() {
	case "TCP", "TLS":
	default:
		return
	}
	g.mu.Lock()
	gc := g.byAddr[msg.Source()]
	g.mu.Unlock()
	if gc != nil {
		gc.mu.Lock()
		gc.last, gc.pending, gc.seen = time.Now(), false, true
		gc.mu.Unlock()
	}
}

// open is the number of inbound connections held.
func (g *connGuard) open() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.total
}

// guardedConn is an inbound connection with its clocks: sipgo's reader
// reads through it, and each Read may wait only until the deadline.
type guardedConn struct {
	net.Conn
	g     *connGuard
	ip    netip.Addr
	raddr string
	once  sync.Once

	mu      sync.Mutex
	last    time.Time // opened, or the last complete message
	pending bool      // bytes read since last; the message must complete in msgTimeout
	seen    bool      // a complete message has come

	wmu     sync.Mutex
	wdone   *sync.Cond // signalled when no write is under way
	writing int        // writes under way
}

// deadline is when the current Read gives up: msgTimeout after opening
// until the first message, and after the first byte of each later one;
// connIdle after the last message otherwise.
func (c *guardedConn) deadline() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending || !c.seen {
		return c.last.Add(time.Duration(c.g.msgTimeout.Load()))
	}
	return c.last.Add(time.Duration(c.g.idle.Load()))
}

func (c *guardedConn) Read(b []byte) (int, error) {
	// Nothing more is taken from a peer while it does not take our
	// answers: each message read becomes a goroutine that writes one.
	// A write waits at most writeTimeout, so this wait ends.
	c.wmu.Lock()
	for c.writing > 0 {
		c.wdone.Wait()
	}
	c.wmu.Unlock()
	if err := c.Conn.SetReadDeadline(c.deadline()); err != nil {
		return 0, err
	}
	n, err := c.Conn.Read(b)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		// Our clock ran out: the connection ends as if the peer closed it
		// (sipgo logs a read error per connection otherwise, thousands
		// under attack).
		c.g.timedOut.Add(1)
		return n, io.EOF
	}
	if n > 0 && !onlyCRLF(b[:n]) {
		c.mu.Lock()
		if !c.pending {
			c.pending, c.last = true, time.Now()
		}
		c.mu.Unlock()
	}
	return n, err
}

// Write gives up after writeTimeout and closes the connection: the peer
// does not read what we send.
func (c *guardedConn) Write(b []byte) (int, error) {
	c.wmu.Lock()
	c.writing++
	c.wmu.Unlock()
	defer func() {
		c.wmu.Lock()
		if c.writing--; c.writing == 0 {
			c.wdone.Broadcast()
		}
		c.wmu.Unlock()
	}()
	if err := c.Conn.SetWriteDeadline(time.Now().Add(time.Duration(c.g.write.Load()))); err != nil {
		return 0, err
	}
	n, err := c.Conn.Write(b)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		c.g.timedOut.Add(1)
		_ = c.Close()
	}
	return n, err
}

// SetReadDeadline is ours alone: sipgo's own read timeout is off.
func (c *guardedConn) SetReadDeadline(time.Time) error { return nil }

func (c *guardedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.g.release(c) })
	return err
}

// onlyCRLF is a keep-alive (RFC 5626 3.5.1): it keeps NAT bindings, not
// connections we did not open.
func onlyCRLF(b []byte) bool {
	for _, ch := range b {
		if ch != '\r' && ch != '\n' {
			return false
		}
	}
	return true
}
