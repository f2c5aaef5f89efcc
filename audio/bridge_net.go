package audio

import (
	"errors"
	"net"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pion/transport/v4"
	"github.com/pion/transport/v4/stdnet"
)

// rawNet is the network pion/ice gathers its candidates on: the standard
// one, with each UDP socket made a rawUDP, so the tab's packets are read
// and written without waking the runtime's monitor thread per packet (see
// session_udp_linux.go), and wrapped in localOnly, so the bridge stays
// loopback-only in effect although it offers the machine's LAN address.
type rawNet struct {
	*stdnet.Net
	own   *ownAddrs
	socks *sockets
}

func newRawNet() (rawNet, error) {
	n, err := stdnet.NewNet()
	if err != nil {
		return rawNet{}, err
	}
	return rawNet{Net: n, own: &ownAddrs{}, socks: &sockets{m: map[netip.AddrPort]*localOnly{}}}, nil
}

func (n rawNet) ListenUDP(network string, laddr *net.UDPAddr) (transport.UDPConn, error) {
	c, err := n.Net.ListenUDP(network, laddr)
	if err != nil {
		return nil, err
	}
	if u, ok := c.(*net.UDPConn); ok {
		return n.socks.add(&localOnly{rawUDP: newRawUDP(u), own: n.own, socks: n.socks}), nil
	}
	return c, nil
}

func (n rawNet) ListenPacket(network, address string) (net.PacketConn, error) {
	c, err := n.Net.ListenPacket(network, address)
	if err != nil {
		return nil, err
	}
	if u, ok := c.(*net.UDPConn); ok {
		return n.socks.add(&localOnly{rawUDP: newRawUDP(u), own: n.own, socks: n.socks}), nil
	}
	return c, nil
}

// localOnly drops every datagram whose source is not one of this machine's
// own addresses. The bridge offers host candidates on the LAN address too
// (Firefox with default prefs pairs nothing with 127.0.0.1, Chromium
// without --allow-loopback-in-peer-connection gathers nothing on it), so
// its sockets listen there; connectivity checks (RFC 8445 7.3) and media
// from any other machine are never read, let alone answered.
//
// A socket that carries a tab's media also has a tap (bridge_fast.go): the
// tab's SRTP packets are decrypted and forwarded right here, in the
// goroutine that read them, instead of passing through pion's mux, SRTP
// session and track buffers (three goroutine hand-offs per packet). Every
// other datagram (STUN, DTLS, RTCP) still goes to pion. While a call's
// reader takes the tab's packets from a quiet socket of their own
// (bridge_quiet.go), the ones for pion reach it through inject.
type localOnly struct {
	*rawUDP
	own   *ownAddrs
	socks *sockets
	tap   atomic.Pointer[fastPath]

	// Datagrams for pion that the quiet socket got (inject). The read
	// deadline is in the past exactly while this queue holds some: that
	// wakes pion's reader, which takes them and clears the deadline, both
	// under imu, so a deadline error with an empty queue is someone
	// else's (pion's abortIO) and is returned as it is.
	imu    sync.Mutex
	inq    []injected
	queued atomic.Int32
}

// injected is one datagram for pion that came in on the quiet socket.
type injected struct {
	b    []byte
	from netip.AddrPort
}

// maxInjected bounds the datagrams waiting for pion's reader: consent
// checks come every few seconds and RTCP a few a second, so a full queue
// means the tab floods, and the surplus is dropped.
const maxInjected = 64

// inject hands pion a datagram from the tab that the quiet socket read.
func (c *localOnly) inject(b []byte, from netip.AddrPort) {
	c.imu.Lock()
	defer c.imu.Unlock()
	if len(c.inq) >= maxInjected {
		return
	}
	c.inq = append(c.inq, injected{b: append([]byte(nil), b...), from: from})
	if c.queued.Add(1) == 1 {
		_ = c.rawUDP.SetReadDeadline(aLongTimeAgo) // wakes the reader
	}
}

// aLongTimeAgo is a deadline that has passed.
var aLongTimeAgo = time.Unix(1, 0)

// takeInjected gives the reader the oldest injected datagram.
func (c *localOnly) takeInjected(b []byte) (int, netip.AddrPort, bool) {
	if c.queued.Load() == 0 {
		return 0, netip.AddrPort{}, false
	}
	c.imu.Lock()
	defer c.imu.Unlock()
	if len(c.inq) == 0 {
		return 0, netip.AddrPort{}, false
	}
	d := c.inq[0]
	c.inq[0] = injected{}
	c.inq = c.inq[1:]
	if c.queued.Add(-1) == 0 {
		c.inq = nil
		_ = c.rawUDP.SetReadDeadline(time.Time{})
	}
	return copy(b, d.b), d.from, true
}

func (c *localOnly) ReadFromAddrPort(b []byte) (int, netip.AddrPort, error) {
	for {
		if n, from, ok := c.takeInjected(b); ok {
			return n, from, nil
		}
		n, from, err := c.rawUDP.ReadFromAddrPort(b)
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) && c.queued.Load() > 0 {
				continue // inject's wake
			}
			return n, from, err
		}
		if !c.own.has(from.Addr()) {
			continue
		}
		if f := c.tap.Load(); f != nil && isRTP(b[:n]) && f.receive(b[:n], from) {
			continue
		}
		return n, from, err
	}
}

// Close forgets the socket before closing it.
func (c *localOnly) Close() error {
	c.socks.remove(c)
	return c.rawUDP.Close()
}

func (c *localOnly) ReadFrom(b []byte) (int, net.Addr, error) {
	n, from, err := c.ReadFromAddrPort(b)
	if err != nil {
		return n, nil, err
	}
	return n, net.UDPAddrFromAddrPort(from), nil
}

func (c *localOnly) ReadFromUDP(b []byte) (int, *net.UDPAddr, error) {
	n, from, err := c.ReadFromAddrPort(b)
	if err != nil {
		return n, nil, err
	}
	return n, net.UDPAddrFromAddrPort(from), nil
}

// sockets finds the socket a tab's selected ICE pair uses by its local
// address.
type sockets struct {
	mu sync.Mutex
	m  map[netip.AddrPort]*localOnly
}

func (s *sockets) add(c *localOnly) *localOnly {
	if ap, err := netip.ParseAddrPort(c.LocalAddr().String()); err == nil {
		s.mu.Lock()
		s.m[netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())] = c
		s.mu.Unlock()
	}
	return c
}

func (s *sockets) remove(c *localOnly) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, v := range s.m {
		if v == c {
			delete(s.m, k)
		}
	}
}

func (s *sockets) find(ap netip.AddrPort) *localOnly {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())]
}

// ownAddrs is the set of this machine's interface addresses, read again
// (at most once a second) when a packet comes from an address not in it:
// a laptop's address changes with the network it joins.
type ownAddrs struct {
	mu   sync.Mutex
	set  map[netip.Addr]bool
	read time.Time
}

func (o *ownAddrs) has(a netip.Addr) bool {
	a = a.Unmap()
	if a.IsLoopback() {
		return true
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.set[a] {
		return true
	}
	if time.Since(o.read) < time.Second {
		return false
	}
	o.read = time.Now()
	o.set = map[netip.Addr]bool{}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, x := range addrs {
		if p, err := netip.ParsePrefix(x.String()); err == nil {
			o.set[p.Addr().Unmap()] = true
		}
	}
	return o.set[a]
}
