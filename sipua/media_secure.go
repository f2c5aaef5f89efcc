package sipua

import (
	"fmt"

	"github.com/emiago/sipgo/sip"

	"github.com/softphone/softphone/audio"
	"github.com/softphone/softphone/store"
)

// ReasonNotEncrypted ends a call that the account requires to be encrypted
// (accounts[].media_encryption_required) when the other side offered or
// answered clear media. The history's reason then says why.
const ReasonNotEncrypted = "not-encrypted"

// callSec is a call's media security (SDES, RFC 4568): what we offered,
// the line we use once negotiated, and the keys handed to the media.
type callSec struct {
	offered []cryptoAttr // our offer's lines, until the answer picks one
	local   *cryptoAttr  // our line in use (its tag is the one agreed)
	proto   string       // m= proto in use; "" before any exchange
	keys    *audio.SRTPKeys

	dtls        *dtlsPlan // DTLS-SRTP instead of SDES (media_dtls.go)
	offeredDTLS bool      // our last offer was DTLS-SRTP
	tlsID       string    // our a=tls-id (RFC 8842), "" before our first DTLS SDP

	// The m= lines of the last offer we answered besides the audio
	// (sdp.go, otherMedia): our SDPs from then on carry them, rejected.
	others  []otherMedia
	audioAt int
}

// encryptionWanted is the account's media_encryption ("none" when unset).
func encryptionWanted(a store.Account) string {
	if a.MediaEncryption == "" {
		return store.MediaEncryptionNone
	}
	return a.MediaEncryption
}

// offerSec is what our offer (INVITE, re-INVITE, or a 200 answering an
// INVITE without SDP) says. Once negotiated, the same line is offered
// again, so a re-INVITE (hold) keeps the keys; before, a new SDES offer
// carries one line per suite, in RTP/SAVP when encryption is required
// and as RTP/AVP with a=crypto (best effort, as baresip's "srtp") when not.
func (c *call) offerSec() (ls localSec, err error) {
	s := &c.sec
	defer func() { ls.others, ls.audioAt = s.others, s.audioAt }()
	if s.dtls != nil {
		return c.dtlsOffer()
	}
	if s.local != nil {
		return localSec{proto: s.proto, crypto: []cryptoAttr{*s.local}}, nil
	}
	if s.proto != "" || encryptionWanted(c.acc) == store.MediaEncryptionNone {
		return localSec{proto: protoAVP}, nil // negotiated clear, or never asked for
	}
	if wantsDTLS(c.acc) {
		return c.dtlsOffer() // RFC 5763 has no best-effort form: always UDP/TLS/RTP/SAVP
	}
	if len(s.offered) == 0 {
		for i, su := range sdesSuites {
			ca, err := newCrypto(i+1, su.name)
			if err != nil {
				return localSec{}, err
			}
			s.offered = append(s.offered, ca)
		}
	}
	proto := protoAVP
	if c.acc.MediaEncryptionRequired {
		proto = protoSAVP
	}
	return localSec{proto: proto, crypto: s.offered}, nil
}

// answerSec decides our answer to the other side's offer r, in the form
// the offer came: an RTP/SAVP offer with a usable a=crypto line gets SRTP
// whatever the account says (refusing it would fail the call); an RTP/AVP
// offer with a=crypto gets SRTP when the account asks for encryption.
// errNotEncrypted (answered 488) when the offer cannot be encrypted but
// must be, or demands SRTP in a way we do not speak.
func (c *call) answerSec(r remoteSDP) (localSec, *audio.SRTPKeys, error) {
	s := &c.sec
	s.others, s.audioAt = r.others, r.audioAt
	pick, use, err := c.offerUsable(r)
	switch {
	case err != nil:
		return localSec{}, nil, err
	case isDTLSProto(r.sec.proto):
		ls, err := c.dtlsAnswer(r)
		return ls, nil, err
	case !use:
		s.local, s.offered, s.keys, s.proto = nil, nil, nil, protoAVP
		return localSec{proto: protoAVP}, nil, nil
	}
	// Keep our key while the suite stays (a re-INVITE), so the stream we
	// send goes on in the same crypto context.
	var mine cryptoAttr
	if s.local != nil && s.local.suite == pick.suite {
		mine = *s.local
	} else {
		var err error
		if mine, err = newCrypto(pick.tag, pick.suite); err != nil {
			return localSec{}, nil, err
		}
	}
	mine.tag = pick.tag
	s.local, s.offered, s.proto = &mine, nil, r.sec.proto
	s.keys = &audio.SRTPKeys{Profile: mine.profile, LocalKey: mine.key, LocalSalt: mine.salt,
		RemoteKey: pick.key, RemoteSalt: pick.salt}
	return localSec{proto: r.sec.proto, crypto: []cryptoAttr{mine}}, s.keys, nil
}

// offerUsable picks the offer's first usable a=crypto line and says
// whether we answer with SRTP; errNotEncrypted when we cannot answer it.
func (c *call) offerUsable(r remoteSDP) (*cryptoAttr, bool, error) {
	if isDTLSProto(r.sec.proto) {
		if r.sec.fingerprint == "" {
			return nil, false, fmt.Errorf("offer %s without a=fingerprint: %w", r.sec.proto, errNotEncrypted)
		}
		if !sha256FP(r.sec.fingerprint) {
			// Refused before it rings; the handshake failed when answered.
			return nil, false, fmt.Errorf("offer %s without a sha-256 a=fingerprint: %w", r.sec.proto, errNotEncrypted)
		}
		return nil, true, nil
	}
	var pick *cryptoAttr
	if len(r.sec.crypto) > 0 {
		pick = &r.sec.crypto[0]
	}
	use := pick != nil && (r.sec.secureProto() || encryptionWanted(c.acc) != store.MediaEncryptionNone)
	switch {
	case r.sec.secureProto() && pick == nil:
		return nil, false, fmt.Errorf("offer %s without a usable a=crypto: %w", r.sec.proto, errNotEncrypted)
	case !use && c.acc.MediaEncryptionRequired:
		return nil, false, fmt.Errorf("offer %s in clear: %w", r.sec.proto, errNotEncrypted)
	}
	return pick, use, nil
}

// refuseClearOffer answers 488 to a new INVITE whose offer cannot be
// encrypted (RFC 3261 21.4.26) before it rings, and ends the call with
// ReasonNotEncrypted. It reports whether it did.
func (c *call) refuseClearOffer(req *sip.Request) bool {
	body := req.Body()
	if len(body) == 0 {
		return false // we offer in the 200; the ACK's answer is checked
	}
	r, err := parseSDP(body)
	if err != nil {
		return false // answer() refuses it with 488 as before
	}
	if _, _, err := c.offerUsable(r); err == nil {
		return false
	}
	c.p.log.Info("incoming call refused: media not encrypted", "call", c.id, "proto", r.sec.proto)
	c.begin(StateRingingIn)
	sess := c.in
	go func() {
		_ = sess.Respond(488, "Not Acceptable Here", nil)
		c.closeFinal()
	}()
	c.end(ReasonNotEncrypted, OutcomeFailed)
	return true
}

// answeredSec reads the other side's answer to our offer: the a=crypto
// line whose tag and suite match one we offered gives the keys. A clear
// answer is taken unless encryption is required (errNotEncrypted).
func (c *call) answeredSec(r remoteSDP) (*audio.SRTPKeys, error) {
	s := &c.sec
	if s.offeredDTLS || s.dtls != nil {
		ok, err := c.dtlsAnswered(r)
		if err != nil || ok {
			return nil, err
		}
		s.offeredDTLS = false
	}
	ours := s.offered
	if s.local != nil {
		ours = []cryptoAttr{*s.local}
	}
	for _, a := range r.sec.crypto {
		for _, o := range ours {
			// RFC 4568 5.1.2: the answer repeats the tag and suite it took.
			if a.tag == o.tag && a.suite == o.suite {
				mine := o
				s.local, s.offered, s.proto = &mine, nil, r.sec.proto
				if s.proto == "" || !r.sec.secureProto() {
					s.proto = protoAVP
				}
				s.keys = &audio.SRTPKeys{Profile: o.profile, LocalKey: o.key, LocalSalt: o.salt,
					RemoteKey: a.key, RemoteSalt: a.salt}
				return s.keys, nil
			}
		}
	}
	if c.acc.MediaEncryptionRequired {
		return nil, fmt.Errorf("answer %s in clear: %w", r.sec.proto, errNotEncrypted)
	}
	if len(ours) > 0 || s.dtls != nil || s.proto == "" {
		s.local, s.offered, s.keys, s.proto, s.dtls = nil, nil, nil, protoAVP, nil // best effort fell back to clear
	}
	return nil, nil
}

// srtpSetter is a media session that can encrypt (audio.Session).
type srtpSetter interface {
	SetSRTP(k *audio.SRTPKeys) error
}

// setKeys hands the negotiated keys to the media before it starts sending;
// a media session that cannot encrypt fails an encrypted call rather than
// send it in clear.
func (c *call) setKeys(k *audio.SRTPKeys) error {
	if c.sec.dtls != nil {
		return nil // the DTLS handshake sets them (startDTLS)
	}
	ss, ok := c.media.(srtpSetter)
	if !ok {
		if k != nil {
			return fmt.Errorf("media session %T: %w", c.media, errNotEncrypted)
		}
		return nil
	}
	if err := ss.SetSRTP(k); err != nil {
		return err
	}
	c.c.Secure = k != nil
	return nil
}

// endNotEncrypted hangs up a connected call whose media fell back to clear
// where the account requires encryption (runs on the call's goroutine).
func (c *call) endNotEncrypted(err error) {
	c.p.log.Info("call ended: media not encrypted", "call", c.id, "error", err)
	if c.c.State == StateEnded {
		return
	}
	c.bye()
	c.end(ReasonNotEncrypted, OutcomeAnswered)
}
