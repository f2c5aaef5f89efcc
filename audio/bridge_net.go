package audio

import (
	"net"

	"github.com/pion/transport/v4"
	"github.com/pion/transport/v4/stdnet"
)

// rawNet is the network pion/ice gathers its candidates on: the standard
// one, with each UDP socket made a rawUDP, so the tab's packets are read
// and written without waking the runtime's monitor thread per packet (see
// session_udp_linux.go).
type rawNet struct{ *stdnet.Net }

func newRawNet() (transport.Net, error) {
	n, err := stdnet.NewNet()
	if err != nil {
		return nil, err
	}
	return rawNet{n}, nil
}

func (n rawNet) ListenUDP(network string, laddr *net.UDPAddr) (transport.UDPConn, error) {
	c, err := n.Net.ListenUDP(network, laddr)
	if err != nil {
		return nil, err
	}
	if u, ok := c.(*net.UDPConn); ok {
		return newRawUDP(u), nil
	}
	return c, nil
}

func (n rawNet) ListenPacket(network, address string) (net.PacketConn, error) {
	c, err := n.Net.ListenPacket(network, address)
	if err != nil {
		return nil, err
	}
	if u, ok := c.(*net.UDPConn); ok {
		return newRawUDP(u), nil
	}
	return c, nil
}
