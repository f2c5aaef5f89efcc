//go:build !linux

package audio

import (
	"net"
	"net/netip"
)

// rawUDP is net.UDPConn where raw system calls are not written for (see
// session_udp_linux.go).
type rawUDP struct{ *net.UDPConn }

func newRawUDP(c *net.UDPConn) *rawUDP { return &rawUDP{UDPConn: c} }

func (u *rawUDP) ReadFromAddrPort(b []byte) (int, netip.AddrPort, error) {
	return u.UDPConn.ReadFromUDPAddrPort(b)
}

func (u *rawUDP) WriteToAddrPort(b []byte, to netip.AddrPort) (int, error) {
	if unspecified(to.Addr()) {
		return 0, errUnspecified
	}
	return u.UDPConn.WriteToUDPAddrPort(b, to)
}
