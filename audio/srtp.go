package audio

import (
	"encoding/binary"
	"fmt"

	"github.com/pion/rtp"
	"github.com/pion/srtp/v3"
)

// SRTPProfile is an SRTP protection profile (RFC 3711, RFC 7714): the
// crypto suite of an SDES a=crypto line (RFC 4568 6.2) or of DTLS-SRTP's
// use_srtp extension (RFC 5764 4.1.2).
type SRTPProfile uint16

// The profiles the phone speaks.
const (
	SRTPAES128CMSHA1_80 = SRTPProfile(srtp.ProtectionProfileAes128CmHmacSha1_80)
	SRTPAES128CMSHA1_32 = SRTPProfile(srtp.ProtectionProfileAes128CmHmacSha1_32)
	SRTPAEADAES128GCM   = SRTPProfile(srtp.ProtectionProfileAeadAes128Gcm)
)

// KeyLen and SaltLen are the master key and salt lengths of the profile:
// 16+14 bytes for AES-CM (RFC 4568 6.2.1), 16+12 for AES-GCM (RFC 7714 12).
func (p SRTPProfile) KeyLen() int {
	n, _ := srtp.ProtectionProfile(p).KeyLen()
	return n
}

// SaltLen is the master salt length of the profile.
func (p SRTPProfile) SaltLen() int {
	n, _ := srtp.ProtectionProfile(p).SaltLen()
	return n
}

// SRTPKeys are the master keys of a call's media: ours encrypt what we
// send, the far end's decrypt what it sends (RFC 3711 8: one crypto context
// per direction). They live only in memory: never log or store them.
type SRTPKeys struct {
	Profile               SRTPProfile
	LocalKey, LocalSalt   []byte
	RemoteKey, RemoteSalt []byte
}

// String hides the keys from a log line or %v that would print them.
func (k SRTPKeys) String() string { return fmt.Sprintf("SRTP keys (profile %d)", k.Profile) }

// srtpState is one set of contexts. Each context is used by one goroutine
// only (pion's Context is not safe for concurrent use): rtpOut under s.mu
// by the writers, rtpIn by readLoop, rtcpOut by rtcpLoop, rtcpIn by
// rtcpRead.
type srtpState struct {
	keys            SRTPKeys
	rtpOut, rtcpOut *srtp.Context
	rtpIn, rtcpIn   *srtpRecv  // with the far end's sources (srtp_sources.go)
	outBuf, inBuf   []byte     // encrypt and decrypt scratch of the RTP paths
	outHdr, inHdr   rtp.Header // their header scratch (nil would allocate one per packet)
}

func newSRTPState(k SRTPKeys) (*srtpState, error) {
	p := srtp.ProtectionProfile(k.Profile)
	st := &srtpState{keys: k, outBuf: make([]byte, 1600), inBuf: make([]byte, 1600)}
	var err error
	if st.rtpOut, err = srtp.CreateContext(k.LocalKey, k.LocalSalt, p); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSRTPKeys, err)
	}
	if st.rtcpOut, err = srtp.CreateContext(k.LocalKey, k.LocalSalt, p); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSRTPKeys, err)
	}
	if st.rtpIn, err = newSRTPRecv(k.RemoteKey, k.RemoteSalt, p, false); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSRTPKeys, err)
	}
	if st.rtcpIn, err = newSRTPRecv(k.RemoteKey, k.RemoteSalt, p, true); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSRTPKeys, err)
	}
	return st, nil
}

func sameBytes(a, b []byte) bool { return string(a) == string(b) }

// SetSRTP makes the session send and receive SRTP (RFC 3711) with keys;
// nil goes back to clear RTP. Set it before Start so that no packet leaves
// in clear. Setting the same keys again keeps the running contexts (their
// rollover counters), so a re-INVITE that repeats the keys changes nothing;
// only a side whose key changed starts a new context (RFC 4568 7.1.4). The
// other side's goes on: a far end that offers a new key of its own keeps
// its context for ours, rollover counter and replay list (RFC 3711 3.2.1,
// 3.3.1); ours started afresh would count from ROC 0 again and, once our
// sequence numbers had wrapped, nothing we sent would authenticate there.
func (s *Session) SetSRTP(k *SRTPKeys) error {
	if k == nil {
		s.srtp.Store(nil)
		return nil
	}
	old := s.srtp.Load()
	sameOut := old != nil && old.keys.Profile == k.Profile && sameBytes(old.keys.LocalKey, k.LocalKey) &&
		sameBytes(old.keys.LocalSalt, k.LocalSalt)
	sameIn := old != nil && old.keys.Profile == k.Profile && sameBytes(old.keys.RemoteKey, k.RemoteKey) &&
		sameBytes(old.keys.RemoteSalt, k.RemoteSalt)
	if sameOut && sameIn {
		return nil
	}
	st, err := newSRTPState(*k)
	if err != nil {
		return fmt.Errorf("call %s: %w", s.cfg.CallID, err)
	}
	// A kept context stays with the one goroutine that uses it (srtpState),
	// whichever state that goroutine loaded.
	if sameOut {
		st.rtpOut, st.rtcpOut = old.rtpOut, old.rtcpOut
	}
	if sameIn {
		st.rtpIn, st.rtcpIn = old.rtpIn, old.rtcpIn
	}
	s.srtp.Store(st)
	return nil
}

// WaitForSRTP makes the session send and play nothing clear from now on,
// until keys come (SetSRTP, a DTLS handshake): call it before Start when
// the call will be DTLS-SRTP, so no packet leaves in clear between Start
// and StartDTLS.
func (s *Session) WaitForSRTP() { s.srtpWanted.Store(true) }

// Encrypted reports whether the session's media is SRTP.
func (s *Session) Encrypted() bool { return s.srtp.Load() != nil }

// srtpIn decrypts one received datagram when the session is encrypted; ok
// is false for a packet that does not authenticate (clear RTP, a stranger,
// a replay): it is dropped (RFC 3711 3.3).
func (s *Session) srtpIn(pkt []byte) (out []byte, ok bool) {
	st := s.srtp.Load()
	if st == nil {
		return pkt, !s.srtpWanted.Load()
	}
	dec, err := st.rtpIn.ctx.DecryptRTP(st.inBuf[:0], pkt, &st.inHdr)
	if err != nil {
		return nil, false
	}
	st.rtpIn.authenticated(st.inHdr.SSRC)
	return dec, true
}

// srtpOut encrypts one marshalled RTP packet; s.mu is held.
func (s *Session) srtpOut(pkt []byte) ([]byte, bool) {
	st := s.srtp.Load()
	if st == nil {
		return pkt, !s.srtpWanted.Load()
	}
	enc, err := st.rtpOut.EncryptRTP(st.outBuf[:0], pkt, &st.outHdr)
	if err != nil {
		return nil, false
	}
	return enc, true
}

// srtcpOut and srtcpIn protect RTCP (RFC 3711 3.4) on the rtcpLoop and
// rtcpRead goroutines. With DTLS-SRTP the keys come from the RTCP port's
// own association (dtls.go); until it is up no RTCP goes out or is read,
// and srtcpIn hands it the DTLS records that arrive there (RFC 7983 7).
func (s *Session) srtcpOut(pkt []byte) ([]byte, bool) {
	st := s.srtp.Load()
	if d := s.dtls.Load(); d != nil {
		if st = d.srtcp.Load(); st == nil {
			return nil, false
		}
	}
	if st == nil {
		return pkt, !s.srtpWanted.Load()
	}
	enc, err := st.rtcpOut.EncryptRTCP(nil, pkt, nil)
	return enc, err == nil
}

func (s *Session) srtcpIn(pkt []byte) ([]byte, bool) {
	st := s.srtp.Load()
	if d := s.dtls.Load(); d != nil {
		if len(pkt) > 0 && pkt[0] >= 20 && pkt[0] <= 63 {
			d.ctrl.feed(pkt)
			return nil, false
		}
		if st = d.srtcp.Load(); st == nil {
			return nil, false
		}
	}
	if st == nil {
		return pkt, !s.srtpWanted.Load()
	}
	dec, err := st.rtcpIn.ctx.DecryptRTCP(nil, pkt, nil)
	if err != nil || len(dec) < 8 {
		return nil, false
	}
	st.rtcpIn.authenticated(binary.BigEndian.Uint32(dec[4:8])) // the sender's SSRC (RFC 3550 6.4)
	return dec, true
}
