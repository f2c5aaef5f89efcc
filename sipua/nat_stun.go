package sipua

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/pion/stun/v4"
)

// stunConn is the SIP UDP listener with STUN answers taken off it before
// sipgo reads: the Binding requests that learn our public SIP address
// (RFC 8489) leave from the listening socket, so the NAT mapping they see
// is the one the PBX sees. A STUN message starts with a byte 0-3 (RFC 7983
// 7), a SIP message with a letter or CR/LF (RFC 5626 keep-alives).
type stunConn struct {
	net.PacketConn
	mu    sync.Mutex
	waits map[[stun.TransactionIDSize]byte]chan netip.AddrPort
}

func newStunConn(c net.PacketConn) *stunConn {
	return &stunConn{PacketConn: c, waits: map[[stun.TransactionIDSize]byte]chan netip.AddrPort{}}
}

// ReadFrom gives sipgo everything but STUN.
func (c *stunConn) ReadFrom(b []byte) (int, net.Addr, error) {
	for {
		n, a, err := c.PacketConn.ReadFrom(b)
		if err != nil || n < 20 || b[0] > 3 || !stun.IsMessage(b[:n]) {
			return n, a, err
		}
		c.deliver(b[:n])
	}
}

func (c *stunConn) deliver(b []byte) {
	m := &stun.Message{Raw: append([]byte(nil), b...)}
	if m.Decode() != nil || m.Type != stun.BindingSuccess {
		return
	}
	c.mu.Lock()
	w := c.waits[m.TransactionID]
	c.mu.Unlock()
	if w == nil {
		return
	}
	if a, ok := mappedAddress(m); ok {
		select {
		case w <- a:
		default:
		}
	}
}

// mappedAddress reads XOR-MAPPED-ADDRESS, else the older MAPPED-ADDRESS.
func mappedAddress(m *stun.Message) (netip.AddrPort, bool) {
	var xa stun.XORMappedAddress
	if xa.GetFrom(m) != nil {
		var ma stun.MappedAddress
		if ma.GetFrom(m) != nil {
			return netip.AddrPort{}, false
		}
		xa.IP, xa.Port = ma.IP, ma.Port
	}
	ip, ok := netip.AddrFromSlice(xa.IP)
	if !ok {
		return netip.AddrPort{}, false
	}
	return netip.AddrPortFrom(ip.Unmap(), uint16(xa.Port)), true
}

// errNoSTUN is a STUN server that gave no mapped address in time.
var errNoSTUN = errors.New("no answer from the STUN server")

// binding sends a Binding request to server (host:port) from the SIP
// socket and waits for the mapped address, retransmitting from 100 ms,
// doubling (RFC 8489 6.2.1), until ctx ends.
func (c *stunConn) binding(ctx context.Context, server string) (netip.AddrPort, error) {
	ua, err := net.DefaultResolver.LookupNetIP(ctx, "ip4", hostOf(server))
	if err != nil || len(ua) == 0 {
		return netip.AddrPort{}, fmt.Errorf("stun server %s: %v", server, err)
	}
	_, port := splitHostPort(server, 3478)
	to := net.UDPAddrFromAddrPort(netip.AddrPortFrom(ua[0].Unmap(), uint16(port)))
	m, err := stun.Build(stun.TransactionID, stun.BindingRequest, stun.Fingerprint)
	if err != nil {
		return netip.AddrPort{}, err
	}
	w := make(chan netip.AddrPort, 1)
	c.mu.Lock()
	c.waits[m.TransactionID] = w
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.waits, m.TransactionID)
		c.mu.Unlock()
	}()
	rto := 100 * time.Millisecond
	for {
		if _, err := c.PacketConn.WriteTo(m.Raw, to); err != nil {
			return netip.AddrPort{}, fmt.Errorf("stun server %s: %w", server, err)
		}
		t := time.NewTimer(rto)
		select {
		case a := <-w:
			t.Stop()
			return a, nil
		case <-ctx.Done():
			t.Stop()
			return netip.AddrPort{}, fmt.Errorf("%w (%s)", errNoSTUN, server)
		case <-t.C:
			rto = min(2*rto, 1600*time.Millisecond)
		}
	}
}

func hostOf(hostport string) string {
	h, _ := splitHostPort(hostport, 0)
	return h
}

// stunContact asks the account's STUN server which address the SIP socket
// has outside the NAT and makes it the Contact (UDP accounts only: over
// TCP/TLS the PBX answers on our connection, RFC 5626). It says whether the
// Contact changed, so the caller registers it. Called before the first
// REGISTER and with each keep-alive, so a new mapping is noticed.
func (l *line) stunContact(ctx context.Context) bool {
	sc := l.p.stack.stun
	if l.acc.StunServer == "" || l.acc.Transport != "udp" || sc == nil {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	a, err := sc.binding(ctx, l.acc.StunServer)
	if err != nil {
		l.p.log.Warn("STUN: public SIP address not learnt", "account", l.acc.ID, "error", err)
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	host := a.Addr().String()
	if host == l.contact.Address.Host && int(a.Port()) == l.contact.Address.Port {
		return false
	}
	l.contact.Address.Host, l.contact.Address.Port = host, int(a.Port())
	return true
}
