package audio

import (
	"net"
	"testing"
	"time"

	"github.com/pion/rtcp"
	"github.com/pion/rtp"
)

// TestDTLSRTCPStrangerCannotBreakIt: a stranger (another IP) who sends
// fatal DTLS alerts to a DTLS-SRTP call's RTCP port all through the
// handshake does not stop the RTCP association: both sides still learn
// the round-trip time over SRTCP.
func TestDTLSRTCPStrangerCannotBreakIt(t *testing.T) {
	fp, err := DTLSFingerprint()
	mustOK(t, err)
	e, err := NewEngine(EngineConfig{Home: t.TempDir(), RTCPInterval: 100 * time.Millisecond})
	mustOK(t, err)
	defer e.Close()
	a, b := pair(t, e, CodecPCMU, nil)
	stranger, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 3)})
	mustOK(t, err)
	defer stranger.Close()
	stop := make(chan struct{})
	flooded := make(chan struct{})
	go func() {
		defer close(flooded)
		// DTLS 1.2 alert records, epoch 0 (RFC 6347 4.1): fatal
		// handshake_failure, numbered 0.. so none is a replay.
		for seq := 0; ; seq++ {
			select {
			case <-stop:
				return
			default:
			}
			rec := []byte{21, 0xfe, 0xfd, 0, 0, 0, 0, 0, 0, byte(seq >> 8), byte(seq), 0, 2, 2, 40}
			for _, s := range []*Session{a, b} {
				to := &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: s.LocalAddr().Port + 1}
				_, _ = stranger.WriteToUDP(rec, to)
			}
			time.Sleep(time.Millisecond) // a steady flood, not a busy loop
		}
	}()
	defer func() { close(stop); <-flooded }()
	mustOK(t, a.StartDTLS(DTLSParams{Client: true, Fingerprint: fp}))
	mustOK(t, b.StartDTLS(DTLSParams{Client: false, Fingerprint: fp}))
	deadline := time.Now().Add(8 * time.Second)
	for a.Stats().RTT == 0 || b.Stats().RTT == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no round-trip time over SRTCP while a stranger sent alerts: %+v %+v", a.Stats(), b.Stats())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestStrangerSRNotInOurReports: a stranger (another IP) sends a sender
// report in the far end's name to the call's RTCP port; the reports the
// call then sends the far end must not echo the stranger's timestamp as
// their LSR (RFC 3550 6.4.1), which would give the far end a false
// round-trip time. The far end itself sends only receiver reports, so
// every LSR must stay 0.
func TestStrangerSRNotInOurReports(t *testing.T) {
	srNotInOurReports(t, func(far *udpPeer, _ *net.UDPConn) *net.UDPConn { return newUDPPeer(t, "127.0.0.3").conn }, 42)
}

// TestOtherSourceSRNotInOurReports: the LSR of our report block on the far
// end's stream (SSRC 42) is the middle of the last sender report of that
// source (RFC 3550 6.4.1), not of another SSRC the far end reports on.
func TestOtherSourceSRNotInOurReports(t *testing.T) {
	srNotInOurReports(t, func(_ *udpPeer, farCtrl *net.UDPConn) *net.UDPConn { return farCtrl }, 99)
}

// srNotInOurReports sends a sender report of ssrc from the socket from
// gives, and checks that no report of ours after it carries its time.
func srNotInOurReports(t *testing.T, from func(far *udpPeer, farCtrl *net.UDPConn) *net.UDPConn, ssrc uint32) {
	e, err := NewEngine(EngineConfig{Home: t.TempDir(), RTCPInterval: 50 * time.Millisecond})
	mustOK(t, err)
	defer e.Close()
	s, err := e.NewSession(SessionConfig{CallID: "sr"})
	mustOK(t, err)
	defer s.Close()
	far := newUDPPeer(t, "127.0.0.1")
	farCtrl := listenAbove(t, far)
	mustOK(t, s.Start(far.addr(), CodecPCMU, 101))
	far.send(s) // the far end's stream (SSRC 42): our reports now carry a block for it

	// Our SSRC, from what we send.
	buf := make([]byte, 1500)
	_ = far.conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	n, _, err := far.conn.ReadFromUDP(buf)
	mustOK(t, err)
	var p rtp.Packet
	mustOK(t, p.Unmarshal(buf[:n]))
	ours := p.SSRC

	ctrl := &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: s.LocalAddr().Port + 1}
	forged := ntpTime(time.Now().Add(-time.Hour))
	sr, _ := rtcp.Marshal([]rtcp.Packet{&rtcp.SenderReport{SSRC: ssrc, NTPTime: forged}})
	_, err = from(far, farCtrl).WriteToUDP(sr, ctrl)
	mustOK(t, err)
	// Then the far end's own receiver report, on the same socket: once the
	// call shows the round-trip time it gives, the stranger's report (sent
	// before it) has been read too.
	rr, _ := rtcp.Marshal([]rtcp.Packet{&rtcp.ReceiverReport{SSRC: 42, Reports: []rtcp.ReceptionReport{{
		SSRC: ours, LastSenderReport: uint32(ntpTime(time.Now()) >> 16)}}}})
	_, err = farCtrl.WriteToUDP(rr, ctrl)
	mustOK(t, err)
	deadline := time.Now().Add(3 * time.Second)
	for s.Stats().RTT == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the far end's receiver report was not taken")
		}
		time.Sleep(10 * time.Millisecond)
	}
	read := ntpTime(time.Now())
	for {
		_ = farCtrl.SetReadDeadline(time.Now().Add(2 * time.Second))
		n, _, err := farCtrl.ReadFromUDP(buf)
		mustOK(t, err)
		pkts, err := rtcp.Unmarshal(buf[:n])
		mustOK(t, err)
		our, ok := pkts[0].(*rtcp.SenderReport)
		if !ok || our.NTPTime < read || len(our.Reports) == 0 {
			continue // sent before the stranger's report was read
		}
		if lsr := our.Reports[0].LastSenderReport; lsr != 0 {
			t.Fatalf("our report carries LSR %#x (that sender report's is %#x)", lsr, uint32(forged>>16))
		}
		return
	}
}

// listenAbove binds the RTCP socket of a udpPeer: the port above its RTP
// port, where our reports go (RFC 3550 11). When that port is taken, the
// test moves the peer to another pair.
func listenAbove(t *testing.T, p *udpPeer) *net.UDPConn {
	t.Helper()
	for range 50 {
		c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: p.addr().IP, Port: p.addr().Port + 1})
		if err == nil {
			t.Cleanup(func() { c.Close() })
			return c
		}
		old := p.conn
		np := newUDPPeer(t, p.addr().IP.String())
		old.Close()
		p.conn = np.conn
	}
	t.Fatal("no free port pair for the far end")
	return nil
}
