package audio

import (
	"math"
	"net"
	"testing"
	"time"

	"github.com/pion/rtp"
)

func TestReorderPutsPacketsBackInOrder(t *testing.T) {
	var ro reorder
	var got []uint16
	emit := func(p *rtp.Packet) { got = append(got, p.SequenceNumber) }
	for _, seq := range []uint16{10, 12, 11, 13, 13, 15, 16, 17, 14, 18, 30000, 30001, 65534, 0, 65535, 1} {
		ro.push(&rtp.Packet{Header: rtp.Header{SequenceNumber: seq}}, emit)
	}
	// 12 waits for 11; the duplicate 13 goes; 14 is given up after 15,16,17
	// wait (depth 2) and dropped when it comes late; 30000 is a restart;
	// 65534 is another, then the numbers wrap.
	want := []uint16{10, 11, 12, 13, 15, 16, 17, 18, 30000, 30001, 65534, 65535, 0, 1, 1}
	// A new source just behind the old numbers is not "late".
	ro.push(&rtp.Packet{Header: rtp.Header{SequenceNumber: 1, SSRC: 99}}, emit)
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

// TestStatsLossAndJitter sends from a raw socket with every tenth packet
// missing, back to back, with timestamps 20 and 60 ms apart by turns: the
// transit time changes by 20-60 ms per packet whatever the machine's speed.
func TestStatsLossAndJitter(t *testing.T) {
	e := newTestEngine(t)
	s, err := e.NewSession(SessionConfig{CallID: "c"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	pbx, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer pbx.Close()
	if err := s.Start(pbx.LocalAddr().(*net.UDPAddr), CodecPCMU, 101); err != nil {
		t.Fatal(err)
	}
	payload := make([]byte, 160)
	sent := 0
	ts := uint32(0)
	for i := 0; i < 100; i++ {
		ts += 160 * uint32(1+2*(i%2))
		if i%10 == 5 {
			continue
		}
		p := rtp.Packet{Header: rtp.Header{Version: 2, Timestamp: ts, SSRC: 42}, Payload: payload}
		p.SequenceNumber = uint16(65500 + i) // wraps past 65535
		b, _ := p.Marshal()
		pbx.WriteToUDP(b, s.LocalAddr())
		sent++
	}
	deadline := time.Now().Add(3 * time.Second)
	for s.Stats().PacketsReceived < uint64(sent) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	st := s.Stats()
	if st.PacketsReceived != uint64(sent) {
		t.Fatalf("received %d of %d", st.PacketsReceived, sent)
	}
	if math.Abs(st.Loss-0.10) > 0.011 {
		t.Fatalf("loss %.3f, want 0.10", st.Loss)
	}
	if st.Jitter < 15 || st.Jitter > 80 {
		t.Fatalf("jitter %.1f ms", st.Jitter)
	}
}

func TestRTTFromRTCP(t *testing.T) {
	e, err := NewEngine(EngineConfig{Home: t.TempDir(), RTCPInterval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	a, b := pair(t, e, CodecPCMU, nil)
	deadline := time.Now().Add(5 * time.Second)
	for a.Stats().RTT == 0 || b.Stats().RTT == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no round-trip time: %+v %+v", a.Stats(), b.Stats())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if rtt := a.Stats().RTT; rtt < 0 || rtt > 100 {
		t.Fatalf("RTT %.2f ms on loopback", rtt)
	}
}

// TestNoTabStillSendsSilence: without a tab the call keeps sending (silent)
// packets, so the PBX's RTP timers and NAT bindings stay alive.
func TestNoTabStillSendsSilence(t *testing.T) {
	e := newTestEngine(t)
	a, b := pair(t, e, CodecPCMU, nil)
	if e.Bridge().Attached() {
		t.Fatal("attached without a tab")
	}
	var heard collector
	b.setTap(heard.add)
	assertQuiet(t, "no tab", heard.take(t, pcmRate/2))
	if a.Stats().PacketsSent < 20 {
		t.Fatalf("sent %d packets", a.Stats().PacketsSent)
	}
}
