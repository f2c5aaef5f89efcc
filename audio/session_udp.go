package audio

import "net"

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
