package audio

import (
	"testing"
	"time"

	"github.com/pion/rtp"
	"github.com/pion/srtp/v3"
)

// TestSRTPFarEndRekeyKeepsOurContext: a re-INVITE in which only the far
// end's SDES key changes (many PBXs make a new one per offer) must leave
// the crypto context of what we send as it was (RFC 3711 3.2.1: its
// rollover counter goes on, RFC 3711 3.3.1). Our stream here has already
// wrapped its sequence numbers (they start at random, RFC 3550 5.1), so a
// context started afresh would encrypt with ROC 0 where the far end, which
// keeps its context for our unchanged key, expects 1: nothing we send
// would authenticate there and the far end would hear nothing after the
// re-INVITE. The far end is a raw socket with its own pion context; it
// must hear our tone, by content, before and after.
func TestSRTPFarEndRekeyKeepsOurContext(t *testing.T) {
	p := SRTPAES128CMSHA1_80
	ours, theirs := srtpKeysPair(t, p)
	s, err := newTestEngine(t).NewSession(SessionConfig{CallID: "rekey"})
	mustOK(t, err)
	defer s.Close()
	far := newUDPPeer(t, "127.0.0.1")
	mustOK(t, s.SetSRTP(&ours))
	s.mu.Lock()
	s.out.seq = 0xfff0 // a random start just below the wrap
	s.mu.Unlock()
	mustOK(t, s.Start(far.addr(), CodecPCMU, 101))
	defer feeder(t, s, 440)()

	// The far end's context for our stream: made once, kept throughout.
	rx, err := srtp.CreateContext(theirs.RemoteKey, theirs.RemoteSalt, srtp.ProtectionProfile(p), srtp.SRTPReplayProtection(64))
	mustOK(t, err)
	dec, err := newDecoder(CodecPCMU)
	mustOK(t, err)
	buf, plain, pcm := make([]byte, 1500), make([]byte, 1500), make([]int16, maxFrame)
	// hear reads our packets until it has n samples of audio decrypted
	// with rx; wrapped reports whether the sequence numbers wrapped.
	hear := func(what string, n int) (heard []int16, wrapped bool) {
		t.Helper()
		var last uint16
		for got, bad := 0, 0; len(heard) < n; got++ {
			_ = far.conn.SetReadDeadline(time.Now().Add(2 * time.Second))
			k, _, err := far.conn.ReadFromUDP(buf)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			var h rtp.Header
			out, err := rx.DecryptRTP(plain, buf[:k], &h)
			if err != nil {
				if bad++; bad > 10 {
					t.Fatalf("%s: %d of our packets in a row do not authenticate at the far end: %v", what, bad, err)
				}
				continue
			}
			bad = 0
			if got > 0 && h.SequenceNumber < last {
				wrapped = true
			}
			last = h.SequenceNumber
			m, err := dec.decode(out[h.MarshalSize():], pcm)
			mustOK(t, err)
			heard = append(heard, pcm[:m]...)
		}
		return heard, wrapped
	}
	heard, wrapped := hear("before the re-INVITE", pcmRate)
	if !wrapped {
		t.Fatal("the sequence numbers did not wrap")
	}
	assertTone(t, "the far end before the re-INVITE", heard[pcmRate/2:], pcmRate, 440)

	// The re-INVITE: the far end offers a new key of its own, ours stays.
	_, fresh := srtpKeysPair(t, p)
	rekeyed := ours
	rekeyed.RemoteKey, rekeyed.RemoteSalt = fresh.LocalKey, fresh.LocalSalt
	mustOK(t, s.SetSRTP(&rekeyed))
	heard, _ = hear("after the re-INVITE", pcmRate/2)
	assertTone(t, "the far end after the re-INVITE", heard, pcmRate, 440)
}
