package audio

import (
	"net"
	"testing"
	"time"

	"github.com/pion/rtp"
)

func TestDTMFSendReceive(t *testing.T) {
	e := newTestEngine(t)
	got := make(chan byte, 32)
	a, _ := pair(t, e, CodecPCMU, func(d byte) { got <- d })
	const digits = "1590*#AD"
	for i := 0; i < len(digits); i++ {
		if err := a.SendDTMF(digits[i]); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < len(digits); i++ {
		select {
		case d := <-got:
			if d != digits[i] {
				t.Fatalf("digit %d: got %c, want %c", i, d, digits[i])
			}
		case <-time.After(3 * time.Second):
			t.Fatalf("digit %d (%c) never arrived", i, digits[i])
		}
	}
	select {
	case d := <-got:
		t.Fatalf("extra digit %c: each event must be reported once", d)
	case <-time.After(200 * time.Millisecond):
	}
	if err := a.SendDTMF('x'); err == nil {
		t.Fatal("x sent as DTMF")
	}
}

func TestHoldSilencesBothWaysAndResumeRestores(t *testing.T) {
	e := newTestEngine(t)
	a, b := pair(t, e, CodecPCMU, nil)
	var heardByA, heardByB collector
	a.setTap(heardByA.add)
	b.setTap(heardByB.add)
	defer feeder(t, a, 440)()
	defer feeder(t, b, 1000)()
	heardByB.take(t, pcmRate/4)
	assertTone(t, "before hold b hears a", heardByB.take(t, pcmRate/4), pcmRate, 440)

	// a holds b (a: sendonly, b answers recvonly).
	a.SetDirection(SendOnly)
	b.SetDirection(RecvOnly)
	heardByB.take(t, pcmRate/4) // what was on the way
	assertQuiet(t, "on hold b hears", heardByB.take(t, pcmRate/4))
	heardByA.reset()
	time.Sleep(200 * time.Millisecond) // a period in which nothing may arrive
	if n := heardByA.len(); n != 0 {
		t.Fatalf("a heard %d samples while holding", n)
	}

	a.SetDirection(SendRecv)
	b.SetDirection(SendRecv)
	heardByB.take(t, pcmRate/4)
	assertTone(t, "after resume b hears a", heardByB.take(t, pcmRate/4), pcmRate, 440)
	heardByA.take(t, pcmRate/4)
	assertTone(t, "after resume a hears b", heardByA.take(t, pcmRate/4), pcmRate, 1000)
}

func TestMuteSendsSilenceNotNothing(t *testing.T) {
	e := newTestEngine(t)
	a, b := pair(t, e, CodecPCMA, nil)
	var heardByB collector
	b.setTap(heardByB.add)
	defer feeder(t, a, 440)()
	heardByB.take(t, pcmRate/4)
	assertTone(t, "unmuted", heardByB.take(t, pcmRate/4), pcmRate, 440)
	a.SetMute(true)
	heardByB.take(t, pcmRate/10)
	before := b.Stats().PacketsReceived
	assertQuiet(t, "muted", heardByB.take(t, pcmRate/2))
	if after := b.Stats().PacketsReceived; after-before < 10 {
		t.Fatalf("muted side sent %d packets in 0.5 s; silence must keep flowing", after-before)
	}
	a.SetMute(false)
	heardByB.take(t, pcmRate/4)
	assertTone(t, "unmuted again", heardByB.take(t, pcmRate/4), pcmRate, 440)
}

// TestReinviteKeepsStreamContinuous changes codec and far end mid-call and
// checks the packets keep one SSRC with sequence numbers that go on by one.
func TestReinviteKeepsStreamContinuous(t *testing.T) {
	e := newTestEngine(t)
	s, err := e.NewSession(SessionConfig{CallID: "c"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	far, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer far.Close()
	read := func() rtp.Packet {
		t.Helper()
		buf := make([]byte, 1500)
		far.SetReadDeadline(time.Now().Add(3 * time.Second))
		n, _, err := far.ReadFromUDP(buf)
		if err != nil {
			t.Fatal(err)
		}
		var p rtp.Packet
		if err := p.Unmarshal(buf[:n]); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if err := s.Start(far.LocalAddr().(*net.UDPAddr), CodecPCMU, 101); err != nil {
		t.Fatal(err)
	}
	p1 := read()
	p2 := read()
	if err := s.Start(far.LocalAddr().(*net.UDPAddr), CodecG722, 101); err != nil {
		t.Fatal(err)
	}
	var p3 rtp.Packet
	for p3 = read(); p3.PayloadType != CodecG722.PT; p3 = read() {
		p2 = p3
	}
	if p1.SSRC != p3.SSRC {
		t.Fatal("SSRC changed on re-INVITE")
	}
	if p2.SequenceNumber+1 != p3.SequenceNumber || p3.Timestamp-p2.Timestamp != 160 {
		t.Fatalf("not continuous: seq %d->%d ts %d->%d", p2.SequenceNumber, p3.SequenceNumber, p2.Timestamp, p3.Timestamp)
	}
}
