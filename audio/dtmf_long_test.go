package audio

import (
	"testing"
	"time"

	"github.com/pion/rtp"
)

// TestDTMFLongPressIsOneDigit: a key held longer than the duration field
// can say (0xFFFF units; 1.4 s with telephone-event/48000) comes as
// segments with timestamps of their own (RFC 4733 2.5.1.3): the far end's
// real packets for "5 held, 5 pressed again, 7" must give the digits
// 5, 5, 7, not a third 5 for the second segment of the held key.
func TestDTMFLongPressIsOneDigit(t *testing.T) {
	got := make(chan byte, 16)
	s, err := newTestEngine(t).NewSession(SessionConfig{CallID: "long", OnDTMF: func(d byte) { got <- d }})
	mustOK(t, err)
	defer s.Close()
	far := newUDPPeer(t, "127.0.0.1")
	mustOK(t, s.Start(far.addr(), CodecPCMU, 101))
	seq := uint16(1000)
	send := func(ts uint32, marker bool, ev dtmfEvent) {
		seq++
		raw, _ := (&rtp.Packet{Header: rtp.Header{Version: 2, PayloadType: 101, Marker: marker, SequenceNumber: seq,
			Timestamp: ts, SSRC: 42}, Payload: ev.marshal()}).Marshal()
		_, err := far.conn.WriteToUDP(raw, s.LocalAddr())
		mustOK(t, err)
	}
	// press sends one event from ts: a segment of durations growing to
	// last, then (when end) the end packet three times (RFC 4733 2.5.1.4).
	press := func(code uint8, ts uint32, marker bool, last uint16, end bool) {
		for i, d := range []uint16{160, 320, 480, last} {
			send(ts, marker && i == 0, dtmfEvent{event: code, volume: 10, duration: d})
		}
		for range 3 {
			if end {
				send(ts, false, dtmfEvent{event: code, volume: 10, duration: last, end: true})
			}
		}
	}
	const t0 = 80000
	press(5, t0, true, 0xFFFF, false)          // 5 held: the first segment reaches the limit
	press(5, t0+0xFFFF, false, 4000, true)     // its second segment, then it ends
	press(5, t0+0xFFFF+8000, true, 800, true)  // 5 pressed again
	press(7, t0+0xFFFF+16000, true, 800, true) // 7
	var digits []byte
	for len(digits) == 0 || digits[len(digits)-1] != '7' {
		select {
		case d := <-got:
			digits = append(digits, d)
		case <-time.After(3 * time.Second):
			t.Fatalf("digits so far %q; the 7 never came", digits)
		}
	}
	if string(digits) != "557" {
		t.Fatalf("digits %q, want \"557\"", digits)
	}
}

// TestDTMFIsNotLoss: telephone-event packets take sequence numbers of the
// far end's stream (RFC 4733 2.1). A stream of 40 audio packets with a
// digit (7 event packets) in the middle, none lost, must show no loss in
// the call's figures (history, our RTCP reports), and every audio packet
// must be heard.
func TestDTMFIsNotLoss(t *testing.T) {
	got := make(chan byte, 4)
	s, err := newTestEngine(t).NewSession(SessionConfig{CallID: "dtmf-loss", OnDTMF: func(d byte) { got <- d }})
	mustOK(t, err)
	defer s.Close()
	var heard collector
	s.setTap(heard.add)
	far := newUDPPeer(t, "127.0.0.1")
	mustOK(t, s.Start(far.addr(), CodecPCMU, 101))
	seq, ts := uint16(65530), uint32(1000) // the numbers wrap on the way
	send := func(pt uint8, marker bool, stamp uint32, payload []byte) {
		seq++
		raw, _ := (&rtp.Packet{Header: rtp.Header{Version: 2, PayloadType: pt, Marker: marker, SequenceNumber: seq,
			Timestamp: stamp, SSRC: 42}, Payload: payload}).Marshal()
		_, err := far.conn.WriteToUDP(raw, s.LocalAddr())
		mustOK(t, err)
	}
	audio := func(n int) {
		for range n {
			ts += 160
			send(0, false, ts, make([]byte, 160))
		}
	}
	audio(20)
	start := ts + 160
	for i, d := range []uint16{160, 320, 480, 640} {
		send(101, i == 0, start, dtmfEvent{event: 1, volume: 10, duration: d}.marshal())
	}
	for range 3 {
		send(101, false, start, dtmfEvent{event: 1, volume: 10, duration: 640, end: true}.marshal())
	}
	ts += 640
	audio(20)
	select {
	case <-got:
	case <-time.After(3 * time.Second):
		t.Fatal("the digit never came")
	}
	heard.take(t, 40*frameLen) // every audio packet heard
	if st := s.Stats(); st.Loss != 0 || st.PacketsReceived != 47 {
		t.Fatalf("loss %.3f over %d packets received; want none lost of 47", st.Loss, st.PacketsReceived)
	}
}
