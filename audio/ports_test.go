package audio

import (
	"net"
	"testing"
)

// TestRTPPortsRandomInRange: sessions of an engine with a port range get
// their pairs at random places in it (RFC 6056 3.3.1), not one after the
// other from its start, which told a stranger the next call's port; never
// a pair of which a port is taken (here by another program, on the RTP or
// the RTCP port), always an even RTP port with RTCP on the next.
func TestRTPPortsRandomInRange(t *testing.T) {
	const lo, hi = 41000, 41999 // 500 pairs
	// Another program holds both ports of some pairs, only the RTCP port
	// of others, only the RTP port of others.
	taken := map[int]bool{}
	for p := lo; p < hi; p += 14 {
		for _, q := range [][]int{{p, p + 1}, {p + 4}, {p + 9}}[p/14%3] {
			c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: q})
			mustOK(t, err)
			defer c.Close()
			taken[q] = true
		}
	}
	e, err := NewEngine(EngineConfig{RTPPortMin: lo, RTPPortMax: hi})
	mustOK(t, err)
	defer e.Close()
	const n = 60
	var buckets [5]int // the range in fifths
	got := map[int]bool{}
	for i := 0; i < n; i++ {
		s, err := e.NewSession(SessionConfig{})
		mustOK(t, err)
		defer s.Close()
		p := s.LocalAddr().Port
		rtcp := s.ctrl.LocalAddr().(*net.UDPAddr).Port
		if p < lo || p+1 > hi || p%2 != 0 || rtcp != p+1 {
			t.Fatalf("session %d: RTP %d, RTCP %d", i, p, rtcp)
		}
		if taken[p] || taken[p+1] || got[p] {
			t.Fatalf("session %d got the taken pair %d", i, p)
		}
		got[p] = true
		buckets[(p-lo)*5/(hi-lo+1)]++
	}
	// In order, all 60 pairs lay in the first fifth. At random, a fifth
	// without one of them has a chance of 5 * 0.8^60 (7e-6).
	for i, b := range buckets {
		if b == 0 {
			t.Fatalf("no session's port in fifth %d of the range: %v", i+1, buckets)
		}
	}
	if n, _, _ := e.RTPOutsideRange(); n != 0 {
		t.Fatalf("%d sessions outside a range with room", n)
	}
}
