package audio

import (
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/pion/rtp"
	"github.com/pion/srtp/v3"
)

// TestSRTPLatchOnlyOnAuthenticatedPacket: an SRTP call whose far end is
// behind a NAT (its SDP names 127.0.0.2, its SIP comes from 127.0.0.1).
// Before the far end speaks, a packet that does not authenticate arrives
// from another port of the SIP peer's IP (an attacker who forges the
// PBX's address, RFC 7362 5). It must not move the stream: the far end's
// real SRTP, from its own port, is heard (440 Hz by content) and our
// packets go to it.
func TestSRTPLatchOnlyOnAuthenticatedPacket(t *testing.T) {
	p := SRTPAES128CMSHA1_80
	ours, theirs := srtpKeysPair(t, p)
	s, err := newTestEngine(t).NewSession(SessionConfig{CallID: "latch-srtp"})
	mustOK(t, err)
	defer s.Close()
	var heard collector
	s.setTap(heard.add)
	mustOK(t, s.SetSRTP(&ours))
	far := newUDPPeer(t, "127.0.0.1")
	s.SetSignalPeer(netip.MustParseAddr("127.0.0.1"))
	mustOK(t, s.Start(&net.UDPAddr{IP: net.IPv4(127, 0, 0, 2), Port: far.addr().Port}, CodecPCMU, 101))

	forger := newUDPPeer(t, "127.0.0.1")
	forged, _ := (&rtp.Packet{Header: rtp.Header{Version: 2, PayloadType: 0, SequenceNumber: 9, Timestamp: 9, SSRC: 42},
		Payload: make([]byte, 170)}).Marshal()
	_, err = forger.conn.WriteToUDP(forged, s.LocalAddr())
	mustOK(t, err)

	tx, err := srtp.CreateContext(theirs.LocalKey, theirs.LocalSalt, srtp.ProtectionProfile(p))
	mustOK(t, err)
	enc, err := newEncoder(CodecPCMU)
	mustOK(t, err)
	var ph float64
	payload, out := make([]byte, 1500), make([]byte, 1500)
	for i := range 25 {
		n, err := enc.encode(tone(440, pcmRate, frameLen, &ph), payload)
		mustOK(t, err)
		raw, _ := (&rtp.Packet{Header: rtp.Header{Version: 2, PayloadType: 0, SequenceNumber: uint16(100 + i),
			Timestamp: uint32(160 * i), SSRC: 42}, Payload: payload[:n]}).Marshal()
		b, err := tx.EncryptRTP(out, raw, nil)
		mustOK(t, err)
		_, err = far.conn.WriteToUDP(b, s.LocalAddr())
		mustOK(t, err)
	}
	assertTone(t, "the far end's audio", heard.take(t, 25*frameLen), pcmRate, 440)
	far.receive(5) // our packets reach the far end
	_ = forger.conn.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if _, _, err := forger.conn.ReadFromUDP(make([]byte, 1500)); err == nil {
		t.Fatal("our packets went to the forger's port")
	}
}

// TestDTLSLatchNotOnForgedRecord: a DTLS-SRTP call whose far end is behind
// a NAT (SDP 127.0.0.2, SIP and media from 127.0.0.1). Before the far end
// speaks, a forged DTLS record comes from another port of the SIP peer's
// IP. The handshake with the far end's real port must still succeed and
// the call carry its tone both ways, by content.
func TestDTLSLatchNotOnForgedRecord(t *testing.T) {
	fp, err := DTLSFingerprint()
	mustOK(t, err)
	e := newTestEngine(t)
	s, err := e.NewSession(SessionConfig{CallID: "ours"})
	mustOK(t, err)
	farEnd, err := e.NewSession(SessionConfig{CallID: "far"})
	mustOK(t, err)
	t.Cleanup(func() { s.Close(); farEnd.Close() })
	s.WaitForSRTP()
	farEnd.WaitForSRTP()
	s.SetSignalPeer(netip.MustParseAddr("127.0.0.1"))
	mustOK(t, s.Start(&net.UDPAddr{IP: net.IPv4(127, 0, 0, 2), Port: farEnd.LocalAddr().Port}, CodecPCMU, 101))
	mustOK(t, farEnd.Start(&net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: s.LocalAddr().Port}, CodecPCMU, 101))

	forger := newUDPPeer(t, "127.0.0.1")
	// A DTLS 1.2 handshake record header (RFC 6347 4.1) and a few bytes.
	_, err = forger.conn.WriteToUDP([]byte{22, 0xfe, 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 1, 0, 0, 0}, s.LocalAddr())
	mustOK(t, err)

	done := make(chan error, 2)
	mustOK(t, s.StartDTLS(DTLSParams{Client: false, Fingerprint: fp, OnDone: func(err error) { done <- err }}))
	mustOK(t, farEnd.StartDTLS(DTLSParams{Client: true, Fingerprint: fp, OnDone: func(err error) { done <- err }}))
	for range 2 {
		select {
		case err := <-done:
			mustOK(t, err)
		case <-time.After(5 * time.Second):
			t.Fatal("no DTLS handshake with the far end after a forged record")
		}
	}
	var heardBySelf, heardByFar collector
	s.setTap(heardBySelf.add)
	farEnd.setTap(heardByFar.add)
	defer feeder(t, s, 440)()
	defer feeder(t, farEnd, 1000)()
	heardBySelf.take(t, pcmRate/2)
	heardByFar.take(t, pcmRate/2)
	assertTone(t, "we hear the far end", heardBySelf.take(t, pcmRate/2), pcmRate, 1000)
	assertTone(t, "the far end hears us", heardByFar.take(t, pcmRate/2), pcmRate, 440)
}

// TestSRTPRelatchAfterNATRebinding: an SRTP call latched to the far end
// behind its NAT (SDP 127.0.0.2, media from 127.0.0.1). The far end's NAT
// then gives it another port (its binding expired while it was held):
// its SRTP from the new port, which authenticates, is heard (by content)
// and our packets follow it there; a forged packet from a third port of
// that IP moves nothing.
func TestSRTPRelatchAfterNATRebinding(t *testing.T) {
	p := SRTPAES128CMSHA1_80
	ours, theirs := srtpKeysPair(t, p)
	s, err := newTestEngine(t).NewSession(SessionConfig{CallID: "rebind"})
	mustOK(t, err)
	defer s.Close()
	var heard collector
	s.setTap(heard.add)
	mustOK(t, s.SetSRTP(&ours))
	far := newUDPPeer(t, "127.0.0.1")
	s.SetSignalPeer(netip.MustParseAddr("127.0.0.1"))
	mustOK(t, s.Start(&net.UDPAddr{IP: net.IPv4(127, 0, 0, 2), Port: far.addr().Port}, CodecPCMU, 101))

	tx, err := srtp.CreateContext(theirs.LocalKey, theirs.LocalSalt, srtp.ProtectionProfile(p))
	mustOK(t, err)
	enc, err := newEncoder(CodecPCMU)
	mustOK(t, err)
	var ph float64
	seq := uint16(100)
	payload, out := make([]byte, 1500), make([]byte, 1500)
	talk := func(from *udpPeer, hz float64) {
		t.Helper()
		heard.reset()
		for range 25 {
			seq++
			n, err := enc.encode(tone(hz, pcmRate, frameLen, &ph), payload)
			mustOK(t, err)
			raw, _ := (&rtp.Packet{Header: rtp.Header{Version: 2, PayloadType: 0, SequenceNumber: seq,
				Timestamp: uint32(seq) * 160, SSRC: 42}, Payload: payload[:n]}).Marshal()
			b, err := tx.EncryptRTP(out, raw, nil)
			mustOK(t, err)
			_, err = from.conn.WriteToUDP(b, s.LocalAddr())
			mustOK(t, err)
		}
		assertTone(t, "the far end", heard.take(t, 25*frameLen), pcmRate, hz)
	}
	talk(far, 440)
	far.receive(3)

	rebound := newUDPPeer(t, "127.0.0.1")
	forger := newUDPPeer(t, "127.0.0.1")
	talk(rebound, 1000)
	forged, _ := (&rtp.Packet{Header: rtp.Header{Version: 2, PayloadType: 0, SequenceNumber: seq + 1, Timestamp: 9, SSRC: 42},
		Payload: make([]byte, 170)}).Marshal()
	_, err = forger.conn.WriteToUDP(forged, s.LocalAddr())
	mustOK(t, err)
	talk(rebound, 440) // read after the forged packet: it moved nothing
	rebound.receive(5)
	_ = forger.conn.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if _, _, err := forger.conn.ReadFromUDP(make([]byte, 1500)); err == nil {
		t.Fatal("our packets went to the forger's port")
	}
}
