package audio

import (
	"net"
	"net/netip"
	"sync"
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
	own *ownAddrs
}

func newRawNet() (transport.Net, error) {
	n, err := stdnet.NewNet()
	if err != nil {
		return nil, err
	}
	return rawNet{Net: n, own: &ownAddrs{}}, nil
}

func (n rawNet) ListenUDP(network string, laddr *net.UDPAddr) (transport.UDPConn, error) {
	c, err := n.Net.ListenUDP(network, laddr)
	if err != nil {
		return nil, err
	}
	if u, ok := c.(*net.UDPConn); ok {
		return localOnly{newRawUDP(u), n.own}, nil
	}
	return c, nil
}

func (n rawNet) ListenPacket(network, address string) (net.PacketConn, error) {
	c, err := n.Net.ListenPacket(network, address)
	if err != nil {
		return nil, err
	}
	if u, ok := c.(*net.UDPConn); ok {
		return localOnly{newRawUDP(u), n.own}, nil
	}
	return c, nil
}

// localOnly drops every datagram whose source is not one of this machine's
// own addresses. The bridge offers host candidates on the LAN address too
// (Firefox with default prefs pairs nothing with 127.0.0.1, Chromium
// without --allow-loopback-in-peer-connection gathers nothing on it), so
// its sockets listen there; connectivity checks (RFC 8445 7.3) and media
// from any other machine are never read, let alone answered.
type localOnly struct {
	*rawUDP
	own *ownAddrs
}

func (c localOnly) ReadFromAddrPort(b []byte) (int, netip.AddrPort, error) {
	for {
		n, from, err := c.rawUDP.ReadFromAddrPort(b)
		if err != nil || c.own.has(from.Addr()) {
			return n, from, err
		}
	}
}

func (c localOnly) ReadFrom(b []byte) (int, net.Addr, error) {
	n, from, err := c.ReadFromAddrPort(b)
	if err != nil {
		return n, nil, err
	}
	return n, net.UDPAddrFromAddrPort(from), nil
}

func (c localOnly) ReadFromUDP(b []byte) (int, *net.UDPAddr, error) {
	n, from, err := c.ReadFromAddrPort(b)
	if err != nil {
		return n, nil, err
	}
	return n, net.UDPAddrFromAddrPort(from), nil
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
