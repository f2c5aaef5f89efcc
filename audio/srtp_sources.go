package audio

import "github.com/pion/srtp/v3"

// maxSRTPSources bounds the far end's sources (SSRCs) one receiving SRTP
// context keeps. pion keeps a state per SSRC (rollover counter, replay
// list: about 150 bytes) for as long as the context lives and never drops
// one, so a far end holding the keys (a caller who sent us its a=crypto
// line, or made a DTLS handshake) that put a new SSRC into every packet
// grew the call's memory without end, 15 MB a second at 100,000 packets.
// A real far end changes its SSRC a few times in a call (re-INVITE,
// transfer, music on hold), far fewer.
const maxSRTPSources = 16

// srtpRecv is one direction of received SRTP or SRTCP: its context and the
// sources it has authenticated. One goroutine uses it (srtpState); SetSRTP
// hands the same one on while the far end's key stays.
type srtpRecv struct {
	ctx        *srtp.Context
	key, salt  []byte
	profile    srtp.ProtectionProfile
	rtcp       bool
	srcs       [maxSRTPSources]uint32
	n          int
	last       uint32 // the source of the last authenticated packet
	newContext func() (*srtp.Context, error)
}

func newSRTPRecv(key, salt []byte, p srtp.ProtectionProfile, rtcp bool) (*srtpRecv, error) {
	r := &srtpRecv{key: key, salt: salt, profile: p, rtcp: rtcp}
	// RFC 3711 3.3.2: the receiver keeps a replay list; 64 packets is the
	// minimum it names.
	r.newContext = func() (*srtp.Context, error) {
		return srtp.CreateContext(r.key, r.salt, r.profile, srtp.SRTPReplayProtection(64), srtp.SRTCPReplayProtection(64))
	}
	var err error
	if r.ctx, err = r.newContext(); err != nil {
		return nil, err
	}
	return r, nil
}

// authenticated notes the source of a packet that authenticated. A source
// beyond maxSRTPSources starts the context again: only the key holder can
// get there, and what it loses is its own older sources' state; the
// rollover counter of the source it sent from before is carried over, so
// going back to it still decrypts (RFC 3711 3.3.1).
func (r *srtpRecv) authenticated(ssrc uint32) {
	if ssrc == r.last && r.n > 0 {
		return
	}
	prev := r.last
	r.last = ssrc
	for _, s := range r.srcs[:r.n] {
		if s == ssrc {
			return
		}
	}
	if r.n < len(r.srcs) {
		r.srcs[r.n] = ssrc
		r.n++
		return
	}
	ctx, err := r.newContext()
	if err != nil {
		return
	}
	if !r.rtcp {
		if roc, ok := r.ctx.ROC(prev); ok {
			ctx.SetROC(prev, roc)
		}
	}
	r.ctx = ctx
	r.srcs[0], r.srcs[1], r.n = prev, ssrc, 2
}
