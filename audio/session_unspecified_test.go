package audio

import (
	"net"
	"testing"
	"time"
)

// TestNothingSentToUnspecifiedAddress: an SDP whose c= is 0.0.0.0 (the
// hold of RFC 2543, RFC 3264 8.4; sipua lets it through from a peer
// anywhere) names no one, but the kernel delivers a datagram sent there
// to this machine: our RTP, RTCP and DTLS went to a local service on the
// port the far end chose (m=, and m=+1 for RTCP). Nothing may go there;
// the same session resumed at a real address sends again.
func TestNothingSentToUnspecifiedAddress(t *testing.T) {
	e, err := NewEngine(EngineConfig{Home: t.TempDir(), RTCPInterval: 20 * time.Millisecond})
	mustOK(t, err)
	t.Cleanup(func() { e.Close() })
	s, err := e.NewSession(SessionConfig{CallID: "unspecified"})
	mustOK(t, err)
	defer s.Close()
	// A local service's port and the one above it (RTCP).
	var rtpL, rtcpL *net.UDPConn
	for rtcpL == nil {
		rtpL, err = net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		mustOK(t, err)
		port := rtpL.LocalAddr().(*net.UDPAddr).Port
		if rtcpL, err = net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port + 1}); err != nil {
			rtpL.Close()
		}
	}
	defer rtpL.Close()
	defer rtcpL.Close()
	port := rtpL.LocalAddr().(*net.UDPAddr).Port

	mustOK(t, s.Start(&net.UDPAddr{IP: net.IPv4zero, Port: port}, CodecPCMU, 101))
	buf := make([]byte, 1500)
	// 15 RTP packets' and RTCP intervals' time: nothing may arrive.
	for _, l := range []*net.UDPConn{rtpL, rtcpL} {
		_ = l.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		if n, _, err := l.ReadFromUDP(buf); err == nil {
			t.Fatalf("a %d-byte datagram for 0.0.0.0 reached the local service at %s", n, l.LocalAddr())
		}
	}
	mustOK(t, s.Start(&net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port}, CodecPCMU, 101))
	_ = rtpL.SetReadDeadline(time.Now().Add(2 * time.Second))
	if _, _, err := rtpL.ReadFromUDP(buf); err != nil {
		t.Fatalf("resumed at 127.0.0.1: %v", err)
	}
}
