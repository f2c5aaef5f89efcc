package sipua

import (
	"context"
	"io"
	"log/slog"
	"net"
	"strconv"
)

// ListenState says how one SIP listener opened: on the asked address, on
// another free port because the asked one was taken (another softphone or a
// local PBX on 5060), or not at all (a transport the system refuses, an
// address that is not ours). The phone runs in every case; accounts on a
// transport without a listener show the reason as their cause.
type ListenState struct {
	Transport string // "udp", "tcp" (and "tls" once there is a TLS listener)
	Want      string // host:port from settings (sip.listen)
	Addr      string // host:port bound; "" when nothing could be opened
	Moved     bool   // Want's port could not be had: Addr is another free port
	Err       string // why Want failed (Moved) or why nothing opened (Addr "")
}

// Open reports whether the listener is up (on Want or elsewhere).
func (s ListenState) Open() bool { return s.Addr != "" }

// Cause is the account cause of a transport whose listener did not open.
func (s ListenState) Cause() string {
	return "no SIP listener for " + s.Transport + ": " + s.Err
}

// listenFallback opens a listener at want with open; when that fails and
// want names a port, it tries each of alts (ports to prefer, e.g. the port
// the UDP listener got) and then port 0, a free port the system picks — as
// ui.port does. Any bind error counts as "taken": Windows reports a busy
// port as WSAEADDRINUSE, not syscall.EADDRINUSE, and a port refused for
// any other reason is as unusable. It is generic so the TLS listener
// (sip.tls_listen) can use it too.
func listenFallback[T io.Closer](want string, open func(addr string) (T, error), addrOf func(T) string, alts ...int) (T, ListenState) {
	st := ListenState{Want: want}
	host, portS, err := net.SplitHostPort(want)
	if err != nil {
		var zero T
		st.Err = err.Error()
		return zero, st
	}
	c, err := open(want)
	if err == nil {
		st.Addr = addrOf(c)
		return c, st
	}
	st.Err = err.Error()
	if portS == "0" {
		return c, st
	}
	tries := make([]string, 0, len(alts)+1)
	for _, p := range alts {
		if p > 0 && strconv.Itoa(p) != portS {
			tries = append(tries, net.JoinHostPort(host, strconv.Itoa(p)))
		}
	}
	for _, addr := range append(tries, net.JoinHostPort(host, "0")) {
		if c2, err2 := open(addr); err2 == nil {
			st.Addr, st.Moved = addrOf(c2), true
			return c2, st
		}
	}
	// Not even a free port: the transport or the host is refused. Err
	// keeps the first error, the one naming the address the user set.
	var zero T
	return zero, st
}

// listenUDP opens the SIP UDP listener of want (host:port).
func listenUDP(ctx context.Context, want string) (net.PacketConn, ListenState) {
	lc := net.ListenConfig{}
	c, st := listenFallback(want,
		func(a string) (net.PacketConn, error) { return lc.ListenPacket(ctx, "udp4", a) },
		func(c net.PacketConn) string { return c.LocalAddr().String() })
	st.Transport = "udp"
	return c, st
}

// listenTCP opens the SIP TCP listener of want, preferring alts (the UDP
// listener's port, so both transports share one port when they can).
func listenTCP(ctx context.Context, want string, alts ...int) (net.Listener, ListenState) {
	lc := net.ListenConfig{}
	l, st := listenFallback(want,
		func(a string) (net.Listener, error) { return lc.Listen(ctx, "tcp4", a) },
		func(l net.Listener) string { return l.Addr().String() }, alts...)
	st.Transport = "tcp"
	return l, st
}

// logListen tells the log what the user also sees on the page.
func logListen(log *slog.Logger, s ListenState) {
	switch {
	case s.Moved:
		log.Warn("SIP port taken by another program: listening on another port", "transport", s.Transport,
			"wanted", s.Want, "listening", s.Addr, "error", s.Err)
	case !s.Open():
		log.Error("SIP listener cannot open: accounts on this transport cannot register", "transport", s.Transport,
			"wanted", s.Want, "error", s.Err)
	}
}

// ListenStates are the SIP listeners of the running phone (none before Serve).
func (p *Phone) ListenStates() []ListenState {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stack == nil {
		return nil
	}
	return append([]ListenState(nil), p.stack.listens...)
}

// missing is the cause for accounts on transport when its listener did not
// open ("" when it did). TLS is outbound only and needs no listener.
func (st *stack) missing(transport string) string {
	if transport == "" {
		transport = "udp"
	}
	for _, s := range st.listens {
		if s.Transport == transport && !s.Open() {
			return s.Cause()
		}
	}
	return ""
}

// portOf is the port of a host:port ("" or bad: 0).
func portOf(addr string) int {
	_, ps, err := net.SplitHostPort(addr)
	if err != nil {
		return 0
	}
	p, _ := strconv.Atoi(ps)
	return p
}
