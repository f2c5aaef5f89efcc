package audio

import (
	"runtime"
	"testing"

	"github.com/pion/rtp"
	"github.com/pion/srtp/v3"
)

// TestSRTPSourcesBounded: a far end that holds the keys (it sent its
// a=crypto line) puts a new SSRC into each of 20,000 SRTP packets. The
// call's memory must not grow with them (pion keeps a state per SSRC for
// the life of its context: about 150 bytes each, 3 MB here), and the far
// end's own stream, sent before and after, is still heard by content.
func TestSRTPSourcesBounded(t *testing.T) {
	p := SRTPAES128CMSHA1_80
	ours, theirs := srtpKeysPair(t, p)
	s, err := newTestEngine(t).NewSession(SessionConfig{CallID: "ssrcs"})
	mustOK(t, err)
	defer s.Close()
	far := newUDPPeer(t, "127.0.0.1")
	mustOK(t, s.SetSRTP(&ours))
	mustOK(t, s.Start(far.addr(), CodecPCMU, 101))
	var heard collector
	s.setTap(heard.add)
	// The far end's contexts: one for its own stream, a new one per 100
	// flood packets (pion's sender keeps a state per SSRC too).
	mkTx := func() *srtp.Context {
		tx, err := srtp.CreateContext(theirs.LocalKey, theirs.LocalSalt, srtp.ProtectionProfile(p))
		mustOK(t, err)
		return tx
	}
	own := mkTx()
	enc, err := newEncoder(CodecPCMU)
	mustOK(t, err)
	out, payload := make([]byte, 1500), make([]byte, 1500)
	send := func(tx *srtp.Context, ssrc uint32, seq uint16, pl []byte) {
		raw, _ := (&rtp.Packet{Header: rtp.Header{Version: 2, PayloadType: 0, SequenceNumber: seq,
			Timestamp: uint32(seq) * 160, SSRC: ssrc}, Payload: pl}).Marshal()
		b, err := tx.EncryptRTP(out, raw, nil)
		mustOK(t, err)
		_, err = far.conn.WriteToUDP(b, s.LocalAddr())
		mustOK(t, err)
	}
	var seq uint16
	var ph float64
	talk := func(what string) {
		t.Helper()
		heard.reset()
		for range 25 { // 500 ms of 440 Hz from the far end's own source
			seq++
			n, err := enc.encode(tone(440, pcmRate, frameLen, &ph), payload)
			mustOK(t, err)
			send(own, 42, seq, payload[:n])
		}
		assertTone(t, what, heard.take(t, pcmRate/2), pcmRate, 440)
	}
	silence := make([]byte, 160)
	flood := func(base uint32, n int) {
		for i := 0; i < n; i += 100 {
			heard.reset()
			tx := mkTx()
			for j := range 100 {
				send(tx, base+uint32(i+j), 1, silence)
			}
			heard.take(t, 90*frameLen) // read (the socket may drop a few)
		}
	}
	var ms runtime.MemStats
	heap := func() uint64 { runtime.GC(); runtime.ReadMemStats(&ms); return ms.HeapAlloc }

	talk("the far end before the flood")
	flood(1_000_000, 2_000)
	before := heap()
	flood(2_000_000, 20_000)
	after := heap()
	if grown := int64(after) - int64(before); grown > 1<<20 {
		t.Errorf("20,000 sources grew the heap by %d bytes", grown)
	}
	talk("the far end after the flood")
}
