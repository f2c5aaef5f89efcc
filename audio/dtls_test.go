package audio

import (
	"errors"
	"testing"
	"time"
)

// TestDTLSSRTPSessionsCarryTone: two sessions agree on SRTP keys by a
// DTLS handshake on their RTP ports (one client, one server) and hear each
// other's tone; a wrong fingerprint fails the handshake and nothing is
// heard (silent, never clear).
func TestDTLSSRTPSessionsCarryTone(t *testing.T) {
	fp, err := DTLSFingerprint()
	mustOK(t, err)
	e := newTestEngine(t)
	a, b := pair(t, e, CodecPCMU, nil)
	var heardByA, heardByB collector
	a.setTap(heardByA.add)
	b.setTap(heardByB.add)
	done := make(chan error, 2)
	mustOK(t, a.StartDTLS(DTLSParams{Client: true, Fingerprint: fp, OnDone: func(err error) { done <- err }}))
	mustOK(t, b.StartDTLS(DTLSParams{Client: false, Fingerprint: fp, OnDone: func(err error) { done <- err }}))
	for i := 0; i < 2; i++ {
		select {
		case err := <-done:
			mustOK(t, err)
		case <-time.After(10 * time.Second):
			t.Fatal("no handshake")
		}
	}
	if !a.Encrypted() || !b.Encrypted() {
		t.Fatal("no SRTP after the handshake")
	}
	defer feeder(t, a, 440)()
	defer feeder(t, b, 1000)()
	heardByB.take(t, pcmRate/2)
	assertTone(t, "b hears a", heardByB.take(t, pcmRate/2), pcmRate, 440)
	assertTone(t, "a hears b", heardByA.take(t, pcmRate/2), pcmRate, 1000)

	// As a secure call does (sipua/media_dtls.go), both ends refuse clear
	// audio before Start: the silence filler's first packet goes at Start.
	c, d := pairWaiting(t, e)
	var heard collector
	d.setTap(heard.add)
	mustOK(t, c.StartDTLS(DTLSParams{Client: true, Fingerprint: "sha-256 00:11", OnDone: func(err error) { done <- err }}))
	mustOK(t, d.StartDTLS(DTLSParams{Client: false, Fingerprint: fp, OnDone: func(err error) { done <- err }}))
	defer feeder(t, c, 440)()
	// The server hears the client's alert at once (the client itself
	// returns only when its handshake times out).
	failed := 0
	select {
	case err := <-done:
		if err != nil {
			failed++
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the handshake with a wrong fingerprint neither failed nor succeeded")
	}
	if failed == 0 || c.Encrypted() || d.Encrypted() {
		t.Fatal("a wrong fingerprint was accepted")
	}
	if n := heard.len(); n != 0 {
		t.Fatalf("%d samples heard without keys", n)
	}
	if err := c.StartDTLS(DTLSParams{Fingerprint: "sha-1 00"}); !errors.Is(err, ErrSRTPKeys) {
		t.Fatalf("sha-1 fingerprint: %v", err)
	}
}

// TestDTLSSRTCPOnItsOwnPort: without rtcp-mux the RTCP ports make their
// own DTLS association (RFC 5764 4.1) and carry SRTCP with its keys: both
// sides learn the round-trip time from the other's reports, which only a
// decrypted report can give; no RTCP leaves in clear before that.
func TestDTLSSRTCPOnItsOwnPort(t *testing.T) {
	fp, err := DTLSFingerprint()
	mustOK(t, err)
	e, err := NewEngine(EngineConfig{Home: t.TempDir(), RTCPInterval: 100 * time.Millisecond})
	mustOK(t, err)
	defer e.Close()
	a, b := pair(t, e, CodecPCMU, nil)
	mustOK(t, a.StartDTLS(DTLSParams{Client: true, Fingerprint: fp}))
	mustOK(t, b.StartDTLS(DTLSParams{Client: false, Fingerprint: fp}))
	deadline := time.Now().Add(10 * time.Second)
	for a.Stats().RTT == 0 || b.Stats().RTT == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no round-trip time over SRTCP: %+v %+v", a.Stats(), b.Stats())
		}
		time.Sleep(20 * time.Millisecond)
	}
	d := a.dtls.Load()
	if d == nil || d.srtcp.Load() == nil {
		t.Fatal("no DTLS association on the RTCP port")
	}
	// The RTCP keys are the RTCP association's, not the RTP one's.
	if st := a.srtp.Load(); st == nil || sameBytes(st.keys.LocalKey, d.srtcp.Load().keys.LocalKey) {
		t.Fatal("SRTCP uses the RTP association's keys")
	}
}

// pairWaiting is pair for sessions that wait for SRTP keys from the start.
func pairWaiting(t *testing.T, e *Engine) (c, d *Session) {
	t.Helper()
	c, err := e.NewSession(SessionConfig{CallID: "c"})
	mustOK(t, err)
	d, err = e.NewSession(SessionConfig{CallID: "d"})
	mustOK(t, err)
	t.Cleanup(func() { c.Close(); d.Close() })
	c.WaitForSRTP()
	d.WaitForSRTP()
	mustOK(t, c.Start(d.LocalAddr(), CodecPCMU, 101))
	mustOK(t, d.Start(c.LocalAddr(), CodecPCMU, 101))
	return c, d
}
