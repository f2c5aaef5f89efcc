package audio

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/pion/rtp"
	"github.com/pion/srtp/v3"
)

func srtpKeysPair(t *testing.T, p SRTPProfile) (a, b SRTPKeys) {
	t.Helper()
	mk := func(n int) []byte {
		k := make([]byte, n)
		if _, err := rand.Read(k); err != nil {
			t.Fatal(err)
		}
		return k
	}
	ka, sa, kb, sb := mk(p.KeyLen()), mk(p.SaltLen()), mk(p.KeyLen()), mk(p.SaltLen())
	return SRTPKeys{Profile: p, LocalKey: ka, LocalSalt: sa, RemoteKey: kb, RemoteSalt: sb},
		SRTPKeys{Profile: p, LocalKey: kb, LocalSalt: sb, RemoteKey: ka, RemoteSalt: sa}
}

// TestSRTPSessionsCarryToneEachProfile: two sessions with crossed keys hear
// each other's tone through SRTP, for each profile the phone offers.
func TestSRTPSessionsCarryToneEachProfile(t *testing.T) {
	for _, p := range []SRTPProfile{SRTPAES128CMSHA1_80, SRTPAES128CMSHA1_32, SRTPAEADAES128GCM} {
		t.Run(fmt.Sprint(srtp.ProtectionProfile(p)), func(t *testing.T) {
			e := newTestEngine(t)
			a, b := pairSRTP(t, e, p)
			var heardByB, heardByA collector
			b.setTap(heardByB.add)
			a.setTap(heardByA.add)
			defer feeder(t, a, 440)()
			defer feeder(t, b, 1000)()
			heardByB.take(t, pcmRate/2) // settle
			assertTone(t, "b hears a", heardByB.take(t, pcmRate/2), pcmRate, 440)
			assertTone(t, "a hears b", heardByA.take(t, pcmRate/2), pcmRate, 1000)
			if !a.Encrypted() || !b.Encrypted() {
				t.Fatal("sessions do not report encryption")
			}
		})
	}
}

func pairSRTP(t *testing.T, e *Engine, p SRTPProfile) (a, b *Session) {
	t.Helper()
	ka, kb := srtpKeysPair(t, p)
	a, err := e.NewSession(SessionConfig{CallID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	b, err = e.NewSession(SessionConfig{CallID: "b"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(); b.Close() })
	if err := a.SetSRTP(&ka); err != nil {
		t.Fatal(err)
	}
	if err := b.SetSRTP(&kb); err != nil {
		t.Fatal(err)
	}
	mustOK(t, a.Start(b.LocalAddr(), CodecPCMU, 101))
	mustOK(t, b.Start(a.LocalAddr(), CodecPCMU, 101))
	return a, b
}

func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestSRTPOnTheWire: what an SRTP session sends is not RTP a listener can
// decode (the payload is not the clear PCMU of the tone and carries the
// 10-byte tag of _80), and clear RTP sent to it is never heard.
func TestSRTPOnTheWire(t *testing.T) {
	e := newTestEngine(t)
	s, err := e.NewSession(SessionConfig{CallID: "s"})
	mustOK(t, err)
	defer s.Close()
	k, _ := srtpKeysPair(t, SRTPAES128CMSHA1_80)
	mustOK(t, s.SetSRTP(&k))
	sniff, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	mustOK(t, err)
	defer sniff.Close()
	var heard collector
	s.setTap(heard.add)
	mustOK(t, s.Start(sniff.LocalAddr().(*net.UDPAddr), CodecPCMU, 0))
	defer feeder(t, s, 440)()

	buf := make([]byte, 1500)
	_ = sniff.SetReadDeadline(time.Now().Add(5 * time.Second))
	var seen int
	for seen < 20 {
		n, _, err := sniff.ReadFromUDP(buf)
		mustOK(t, err)
		var p rtp.Packet
		mustOK(t, p.Unmarshal(buf[:n])) // the header stays clear (RFC 3711 3.1)
		if len(p.Payload) != 160+10 {
			t.Fatalf("SRTP payload+tag %d bytes, want 170", len(p.Payload))
		}
		if bytes.Count(p.Payload, p.Payload[:1]) > 40 {
			t.Fatalf("payload looks clear (constant): %x", p.Payload[:16])
		}
		seen++
	}
	// Clear RTP of a tone from the far end's address is dropped.
	enc, err := newEncoder(CodecPCMU)
	mustOK(t, err)
	var ph float64
	for i := 0; i < 25; i++ {
		pl := make([]byte, 400)
		n, err := enc.encode(tone(1000, pcmRate, frameLen, &ph), pl)
		mustOK(t, err)
		p := rtp.Packet{Header: rtp.Header{Version: 2, SSRC: 7, SequenceNumber: uint16(i), Timestamp: uint32(160 * i)}, Payload: pl[:n]}
		b, _ := p.Marshal()
		_, err = sniff.WriteToUDP(b, s.LocalAddr())
		mustOK(t, err)
	}
	time.Sleep(200 * time.Millisecond) // nothing to await: proving an absence
	if n := heard.len(); n != 0 {
		t.Fatalf("%d samples of clear RTP were heard by an SRTP session", n)
	}
	if st := s.Stats(); st.PacketsReceived != 0 {
		t.Fatalf("clear packets counted: %+v", st)
	}
}

func TestSRTPBadKeys(t *testing.T) {
	e := newTestEngine(t)
	s, err := e.NewSession(SessionConfig{CallID: "s"})
	mustOK(t, err)
	defer s.Close()
	err = s.SetSRTP(&SRTPKeys{Profile: SRTPAES128CMSHA1_80, LocalKey: []byte{1}, LocalSalt: []byte{2}})
	if !errors.Is(err, ErrSRTPKeys) {
		t.Fatalf("short keys: %v", err)
	}
	if s.Encrypted() {
		t.Fatal("failed keys left the session encrypted")
	}
	if got := fmt.Sprint(SRTPKeys{LocalKey: []byte("secretkey")}); bytes.Contains([]byte(got), []byte("secret")) {
		t.Fatalf("keys printed: %s", got)
	}
}
