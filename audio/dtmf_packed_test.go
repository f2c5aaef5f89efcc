package audio

import (
	"testing"
	"time"

	"github.com/pion/rtp"
)

// TestDTMFPackedEventsEachOnce: a far end that packs consecutive events
// into one packet (RFC 4733 2.5.1.5: the first starts at the packet's
// timestamp, each next one where the one before ended) and repeats its
// packets (2.5.1.4) must give each digit once, in order. Only the first
// event of a packet was read: "13467" instead of "12345667".
func TestDTMFPackedEventsEachOnce(t *testing.T) {
	got := make(chan byte, 32)
	s, err := newTestEngine(t).NewSession(SessionConfig{CallID: "packed", OnDTMF: func(d byte) { got <- d }})
	mustOK(t, err)
	defer s.Close()
	far := newUDPPeer(t, "127.0.0.1")
	mustOK(t, s.Start(far.addr(), CodecPCMU, 101))
	seq := uint16(3000)
	send := func(ts uint32, marker bool, evs ...dtmfEvent) {
		seq++
		var payload []byte
		for _, ev := range evs {
			payload = append(payload, ev.marshal()...)
		}
		raw, _ := (&rtp.Packet{Header: rtp.Header{Version: 2, PayloadType: 101, Marker: marker, SequenceNumber: seq,
			Timestamp: ts, SSRC: 42}, Payload: payload}).Marshal()
		_, err := far.conn.WriteToUDP(raw, s.LocalAddr())
		mustOK(t, err)
	}
	ev := func(code uint8, dur uint16, end bool) dtmfEvent {
		return dtmfEvent{event: code, volume: 10, duration: dur, end: end}
	}
	const t0 = 16000
	// 1 and 2 ended, 3 begun: one packet, sent twice; then 3 goes on and
	// ends on its own (its start: t0 + 400 + 400).
	send(t0, true, ev(1, 400, true), ev(2, 400, true), ev(3, 160, false))
	send(t0, false, ev(1, 400, true), ev(2, 400, true), ev(3, 160, false))
	send(t0+800, false, ev(3, 320, false))
	for range 3 {
		send(t0+800, false, ev(3, 400, true))
	}
	// 4 and 5, both ended, in the final packet sent three times.
	for i := range 3 {
		send(t0+8000, i == 0, ev(4, 400, true), ev(5, 400, true))
	}
	// The same key twice, contiguous: two presses.
	for i := range 3 {
		send(t0+16000, i == 0, ev(6, 400, true), ev(6, 400, true))
	}
	// 7 alone, as before.
	for i := range 3 {
		send(t0+24000, i == 0, ev(7, 400, true))
	}
	var digits []byte
	for len(digits) == 0 || digits[len(digits)-1] != '7' {
		select {
		case d := <-got:
			digits = append(digits, d)
		case <-time.After(3 * time.Second):
			t.Fatalf("digits so far %q; the 7 never came", digits)
		}
	}
	if string(digits) != "12345667" {
		t.Fatalf("digits %q, want \"12345667\"", digits)
	}
}
