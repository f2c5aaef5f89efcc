package audio

import (
	"net"
	"testing"
	"time"

	"github.com/pion/rtp"
)

// udpPeer is a plain socket standing in for the far end's media.
type udpPeer struct {
	t    *testing.T
	conn *net.UDPConn
	seq  uint16
}

func newUDPPeer(t *testing.T, ip string) *udpPeer {
	t.Helper()
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.ParseIP(ip)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &udpPeer{t: t, conn: c}
}

func (p *udpPeer) addr() *net.UDPAddr { return p.conn.LocalAddr().(*net.UDPAddr) }

// send sends one PCMU packet to s.
func (p *udpPeer) send(s *Session) {
	p.seq++
	raw, _ := (&rtp.Packet{Header: rtp.Header{Version: 2, PayloadType: 0, SequenceNumber: p.seq,
		Timestamp: uint32(p.seq) * 160, SSRC: 42}, Payload: make([]byte, 160)}).Marshal()
	if _, err := p.conn.WriteToUDP(raw, s.LocalAddr()); err != nil {
		p.t.Fatal(err)
	}
}

// receive reads n RTP packets (the session sends one every 20 ms), failing
// after two seconds.
func (p *udpPeer) receive(n int) {
	p.t.Helper()
	buf := make([]byte, 1500)
	for i := 0; i < n; i++ {
		_ = p.conn.SetReadDeadline(time.Now().Add(2 * time.Second))
		if _, _, err := p.conn.ReadFromUDP(buf); err != nil {
			p.t.Fatalf("packet %d of %d: %v", i+1, n, err)
		}
	}
}

// TestLatchToNATedSource: the far end's SDP names an address it cannot be
// reached at (its private address behind a NAT; here 127.0.0.2), its packets
// come from another IP: ours follow them there after its first packet, and
// a later stranger cannot take the stream over.
func TestLatchToNATedSource(t *testing.T) {
	s, err := newTestEngine(t).NewSession(SessionConfig{CallID: "nat"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	far := newUDPPeer(t, "127.0.0.1")
	sdp := &net.UDPAddr{IP: net.IPv4(127, 0, 0, 2), Port: far.addr().Port}
	if err := s.Start(sdp, CodecPCMU, 101); err != nil {
		t.Fatal(err)
	}
	far.send(s)
	far.receive(5)
	stranger := newUDPPeer(t, "127.0.0.1")
	stranger.send(s)
	far.receive(10) // still ours: 200 ms of packets after the stranger's
}

// TestNoLatchOnSameIP: packets from another port of the SDP's own IP do not
// move the stream (a media server may send from another port than it
// receives on).
func TestNoLatchOnSameIP(t *testing.T) {
	s, err := newTestEngine(t).NewSession(SessionConfig{CallID: "same-ip"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	far, other := newUDPPeer(t, "127.0.0.1"), newUDPPeer(t, "127.0.0.1")
	if err := s.Start(far.addr(), CodecPCMU, 101); err != nil {
		t.Fatal(err)
	}
	other.send(s)
	other.send(s)
	far.receive(10)
}
