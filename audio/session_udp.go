package audio

import (
	"errors"
	"net"
	"net/netip"
)

// errUnspecified is a datagram for 0.0.0.0 or ::, which the kernel
// delivers to this machine: an SDP's c=0.0.0.0 (the hold of RFC 2543,
// RFC 3264 8.4) names no one to send to, and what we sent there (RTP,
// RTCP, DTLS) reached a local service on the port the far end chose.
var errUnspecified = errors.New("udp: no datagram to the unspecified address")

// unspecified says whether to is 0.0.0.0 or :: (also as ::ffff:0.0.0.0,
// the form a net.UDPAddr of net.IPv4zero takes).
func unspecified(to netip.Addr) bool { return to.Unmap().IsUnspecified() }

// ReadFrom and WriteTo make rawUDP a net.PacketConn whose datagrams take
// the raw path too (pion/ice falls back to them for addresses without an
// AddrPort form).
func (u *rawUDP) ReadFrom(b []byte) (int, net.Addr, error) {
	n, from, err := u.ReadFromAddrPort(b)
	if err != nil {
		return n, nil, err
	}
	return n, net.UDPAddrFromAddrPort(from), nil
}

func (u *rawUDP) WriteTo(b []byte, addr net.Addr) (int, error) {
	if a, ok := addr.(*net.UDPAddr); ok {
		return u.WriteToAddrPort(b, a.AddrPort())
	}
	return u.UDPConn.WriteTo(b, addr)
}

// ReadFromUDP and WriteToUDP are the session's own calls.
func (u *rawUDP) ReadFromUDP(b []byte) (int, *net.UDPAddr, error) {
	n, from, err := u.ReadFromAddrPort(b)
	if err != nil {
		return n, nil, err
	}
	return n, net.UDPAddrFromAddrPort(from), nil
}

func (u *rawUDP) WriteToUDP(b []byte, to *net.UDPAddr) (int, error) {
	return u.WriteToAddrPort(b, to.AddrPort())
}
