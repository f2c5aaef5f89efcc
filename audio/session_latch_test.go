package audio

import (
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/pion/rtp"

	"github.com/softphone/softphone/internal/testpeer"
)

// udpPeer is a plain socket standing in for the far end's media.
type udpPeer struct {
	t    *testing.T
	conn *net.UDPConn
	seq  uint16
	ssrc uint32 // 42, as the far end's in the tests that forge its packets
}

func newUDPPeer(t *testing.T, ip string) *udpPeer {
	t.Helper()
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.ParseIP(ip)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &udpPeer{t: t, conn: c, ssrc: 42}
}

func (p *udpPeer) addr() *net.UDPAddr { return p.conn.LocalAddr().(*net.UDPAddr) }

// send sends one PCMU packet to s.
func (p *udpPeer) send(s *Session) {
	p.seq++
	raw, _ := (&rtp.Packet{Header: rtp.Header{Version: 2, PayloadType: 0, SequenceNumber: p.seq,
		Timestamp: uint32(p.seq) * 160, SSRC: p.ssrc}, Payload: make([]byte, 160)}).Marshal()
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
// come from the IP its SIP messages come from (127.0.0.1): ours follow them
// there after its first packet, and later packets from another port of that
// IP or from another IP cannot take the stream over (RFC 7362 5).
func TestLatchToNATedSource(t *testing.T) {
	s, err := newTestEngine(t).NewSession(SessionConfig{CallID: "nat"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	far := newUDPPeer(t, "127.0.0.1")
	sdp := &net.UDPAddr{IP: net.IPv4(127, 0, 0, 2), Port: far.addr().Port}
	s.SetSignalPeer(netip.MustParseAddr("127.0.0.1"))
	if err := s.Start(sdp, CodecPCMU, 101); err != nil {
		t.Fatal(err)
	}
	far.send(s)
	far.receive(5)
	samePeerIP := newUDPPeer(t, "127.0.0.1")
	samePeerIP.ssrc = 7 // a stranger does not know the far end's SSRC
	far.send(s)         // the latched source goes on
	samePeerIP.send(s)
	stranger := newUDPPeer(t, "127.0.0.3")
	stranger.send(s)
	far.receive(10) // still ours: 200 ms of packets after the others'
	if n := s.StrayPackets(); n != 2 {
		t.Errorf("stray packets counted: %d, want 2", n)
	}
}

// TestNoLatchWithoutSignalPeer: a stranger that sends first, from an IP that
// is neither the SDP's nor the SIP peer's, gets nothing: the stream stays on
// the SDP's address and the stranger's packets are counted as strays.
func TestNoLatchWithoutSignalPeer(t *testing.T) {
	e := newTestEngine(t)
	s, err := e.NewSession(SessionConfig{CallID: "stranger-first"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	far := newUDPPeer(t, "127.0.0.1")
	stranger := newUDPPeer(t, "127.0.0.3")
	if err := s.Start(far.addr(), CodecPCMU, 101); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		stranger.send(s)
	}
	far.receive(10)
	_ = stranger.conn.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	if _, _, err := stranger.conn.ReadFromUDP(make([]byte, 1500)); err == nil {
		t.Fatal("the stranger who sent first got the call's audio")
	}
	if e.StrayPackets() != 5 || s.StrayPackets() != 5 {
		t.Errorf("strays: engine %d, session %d; want 5", e.StrayPackets(), s.StrayPackets())
	}
}

// TestStrayAudioNotHeard: while the far end sends a 440 Hz tone, a stranger
// on another address sends 1000 Hz to the same port: the call hears only
// the 440 Hz, by content.
func TestStrayAudioNotHeard(t *testing.T) {
	mk := func(ip, id string) *Session {
		e, err := NewEngine(EngineConfig{Home: t.TempDir(), BindIP: ip})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		s, err := e.NewSession(SessionConfig{CallID: id})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	call, far, stranger := mk("127.0.0.1", "call"), mk("127.0.0.2", "far"), mk("127.0.0.3", "stranger")
	for _, st := range []struct{ s, to *Session }{{call, far}, {far, call}, {stranger, call}} {
		if err := st.s.Start(st.to.LocalAddr(), CodecPCMU, 101); err != nil {
			t.Fatal(err)
		}
	}
	var heard collector
	call.setTap(heard.add)
	defer feeder(t, stranger, 1000)()
	defer feeder(t, far, 440)()
	heard.take(t, pcmRate/2) // settle
	heard.reset()
	assertTones(t, "heard during a stray stream", heard.take(t, pcmRate), []float64{440}, []float64{1000})
	if call.StrayPackets() == 0 {
		t.Error("the stranger's packets were not counted")
	}
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

// latchedTo waits until five of our packets reached p (the stream
// latched there), p sending one packet for each it waits for; it fails
// after five seconds.
func (p *udpPeer) latchedTo(s *Session, what string) {
	p.t.Helper()
	buf := make([]byte, 1500)
	deadline := time.Now().Add(5 * time.Second)
	for got := 0; got < 5; {
		if time.Now().After(deadline) {
			p.t.Fatalf("%s: our packets never reached it", what)
		}
		p.send(s)
		_ = p.conn.SetReadDeadline(time.Now().Add(40 * time.Millisecond))
		if _, _, err := p.conn.ReadFromUDP(buf); err == nil {
			got++
		}
	}
}

// awaitStrays waits until the session counted n strays.
func awaitStrays(t *testing.T, s *Session, n uint64) {
	t.Helper()
	if !testpeer.WaitFor(5*time.Second, func() bool { return s.StrayPackets() >= n }) {
		t.Fatalf("strays: %d, want %d", s.StrayPackets(), n)
	}
}

// TestClearRelatchAfterNATRebinding: a clear RTP call latched to the far
// end behind its NAT (SDP 127.0.0.2, media from 127.0.0.1). The far end's
// NAT gives it another port (its binding expired while it sent nothing,
// on hold): its packets from there, with its SSRC, move our stream there
// (RFC 7362 4). They were strays, and ours went on to the old binding: a
// call silent both ways after the first hold longer than the NAT's
// timeout. A packet from a third port without the SSRC moves nothing
// while the far end sends.
func TestClearRelatchAfterNATRebinding(t *testing.T) {
	s, err := newTestEngine(t).NewSession(SessionConfig{CallID: "clear-rebind"})
	mustOK(t, err)
	defer s.Close()
	far := newUDPPeer(t, "127.0.0.1")
	s.SetSignalPeer(netip.MustParseAddr("127.0.0.1"))
	mustOK(t, s.Start(&net.UDPAddr{IP: net.IPv4(127, 0, 0, 2), Port: far.addr().Port}, CodecPCMU, 101))
	far.latchedTo(s, "the far end")

	rebound := newUDPPeer(t, "127.0.0.1")
	rebound.seq = far.seq
	rebound.latchedTo(s, "the far end's new NAT port")

	forger := newUDPPeer(t, "127.0.0.1")
	forger.ssrc = 7
	forger.send(s)
	awaitStrays(t, s, 1)
	rebound.latchedTo(s, "the far end after the forged packet")
	_ = forger.conn.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if _, _, err := forger.conn.ReadFromUDP(make([]byte, 1500)); err == nil {
		t.Fatal("our packets went to the forger's port")
	}
}

// TestClearForgedFirstPacketDoesNotKeepTheStream: before the far end
// behind its NAT speaks, one forged packet from another port of the SIP
// peer's IP (anyone who forges the PBX's address, RFC 7362 5) takes the
// stream. Once the forger has sent nothing for relatchQuiet, the far
// end's own packets take it back; they were strays for the rest of the
// call, which stayed silent both ways.
func TestClearForgedFirstPacketDoesNotKeepTheStream(t *testing.T) {
	s, err := newTestEngine(t).NewSession(SessionConfig{CallID: "clear-forged-first"})
	mustOK(t, err)
	defer s.Close()
	far := newUDPPeer(t, "127.0.0.1")
	s.SetSignalPeer(netip.MustParseAddr("127.0.0.1"))
	mustOK(t, s.Start(&net.UDPAddr{IP: net.IPv4(127, 0, 0, 2), Port: far.addr().Port}, CodecPCMU, 101))
	forger := newUDPPeer(t, "127.0.0.1")
	forger.ssrc = 7
	forger.send(s)
	forger.receive(1) // it took the stream
	far.latchedTo(s, "the far end after the forger went quiet")
}

// TestSDPAddressAfterLatchIsStray: the far end is behind a NAT (its SDP
// names its private 127.0.0.2, its media comes from the SIP peer's
// 127.0.0.1) and the stream latched there. A host of our own network with
// the far end's private address (a home's 192.168.1.x on both sides)
// sends to the call's port: its packets are strays. They were taken as
// the far end's own and its audio joined the call's.
func TestSDPAddressAfterLatchIsStray(t *testing.T) {
	s, err := newTestEngine(t).NewSession(SessionConfig{CallID: "lan-twin"})
	mustOK(t, err)
	defer s.Close()
	twin := newUDPPeer(t, "127.0.0.2")
	far := newUDPPeer(t, "127.0.0.1")
	s.SetSignalPeer(netip.MustParseAddr("127.0.0.1"))
	mustOK(t, s.Start(&net.UDPAddr{IP: net.IPv4(127, 0, 0, 2), Port: twin.addr().Port}, CodecPCMU, 101))
	far.latchedTo(s, "the far end")
	twin.ssrc = 7
	for range 3 {
		twin.send(s)
	}
	awaitStrays(t, s, 3)
	far.latchedTo(s, "the far end after the twin's packets")
}
