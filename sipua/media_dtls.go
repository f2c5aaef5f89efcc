package sipua

import (
	"crypto/rand"
	"fmt"
	"strings"

	"github.com/pion/sdp/v3"

	"github.com/softphone/softphone/audio"
	"github.com/softphone/softphone/store"
)

// dtlsPlan is a call's DTLS-SRTP (RFC 5763): our role, the far end's
// certificate fingerprint and its a=tls-id. Re-INVITEs keep the
// association while all three stay (RFC 5763 6.7.1); a new plan is a new
// association (RFC 8842 5).
type dtlsPlan struct {
	client      bool   // we are the DTLS client: our a=setup is active
	fingerprint string // the far end's, "sha-256 AB:..."
	tlsID       string // the far end's a=tls-id, "" without one
	started     bool
	toldID      string // the tls-id the media session was told
	// failed is why the handshake failed during early media (no dialog
	// to hang up yet): the next media the far end's SDP starts, its
	// answer's, runs a new one (startDTLS).
	failed error
}

// isDTLSProto reports an m= proto of DTLS-SRTP (RFC 5764 8).
func isDTLSProto(p string) bool { return strings.HasPrefix(strings.ToUpper(p), "UDP/TLS/RTP/SAVP") }

// fingerprinter is a media engine that has a DTLS certificate.
type fingerprinter interface{ DTLSFingerprint() (string, error) }

func (audioMedia) DTLSFingerprint() (string, error) { return audio.DTLSFingerprint() }

// dtlsStarter is a media session that can run the handshake (audio.Session).
type dtlsStarter interface {
	StartDTLS(p audio.DTLSParams) error
}

// ourFingerprint is our a=fingerprint value, or errNotEncrypted when the
// media engine has no DTLS.
func (c *call) ourFingerprint() (string, error) {
	f, ok := c.p.media.(fingerprinter)
	if !ok {
		return "", fmt.Errorf("media engine %T: %w", c.p.media, errNotEncrypted)
	}
	fp, err := f.DTLSFingerprint()
	if err != nil {
		return "", fmt.Errorf("DTLS certificate: %v: %w", err, errNotEncrypted)
	}
	return fp, nil
}

// dtlsAttrs are our a=fingerprint, a=setup and a=tls-id lines (RFC 8122,
// RFC 4145, RFC 8842 5: an offer or answer with a DTLS association
// carries its tls-id).
func dtlsAttrs(fp, setup, tlsID string) []sdp.Attribute {
	return []sdp.Attribute{sdp.NewAttribute("fingerprint", fp), sdp.NewAttribute("setup", setup),
		sdp.NewAttribute("tls-id", tlsID)}
}

// newTLSID is a fresh a=tls-id value: RFC 8842 4 asks for at least 120
// bits from a strong random source in 20 to 255 of ALPHA / DIGIT / "+" /
// "/" / "-" / "_"; rand.Text is 26 characters of base32 (128 bits).
func newTLSID() string { return rand.Text() }

// ourTLSID is our a=tls-id for the association of c.sec.dtls (or the one
// our first offer proposes): the same in every SDP of that association,
// so a re-offer (hold) is no restart to the far end (RFC 8842 5.5).
func (s *callSec) ourTLSID() string {
	if s.tlsID == "" {
		s.tlsID = newTLSID()
	}
	return s.tlsID
}

// dtlsOffer is our DTLS-SRTP offer: actpass before anything is agreed (the
// answerer picks, RFC 5763 5), our role once it is.
func (c *call) dtlsOffer() (localSec, error) {
	fp, err := c.ourFingerprint()
	if err != nil {
		return localSec{}, err
	}
	setup := "actpass"
	if d := c.sec.dtls; d != nil {
		setup = map[bool]string{true: "active", false: "passive"}[d.client]
	}
	c.sec.offeredDTLS = true
	return localSec{proto: protoDTLS, attrs: dtlsAttrs(fp, setup, c.sec.ourTLSID())}, nil
}

// dtlsAnswer answers a DTLS-SRTP offer in its own form: the offerer's
// actpass or passive makes us the client (active), its active makes us
// the server (passive).
func (c *call) dtlsAnswer(r remoteSDP) (localSec, error) {
	if r.sec.fingerprint == "" {
		return localSec{}, fmt.Errorf("offer %s without a=fingerprint: %w", r.sec.proto, errNotEncrypted)
	}
	var client bool
	switch strings.ToLower(r.sec.setup) {
	case "", "actpass": // RFC 4145 4: no a=setup means active, but RFC 5763 5 has the offerer actpass
		// A re-offer's actpass leaves a running association's roles
		// (baresip repeats it); the answerer picks the first time.
		client = c.sec.dtls == nil || c.sec.dtls.client
	case "passive":
		client = true
	case "active":
		client = false
	default:
		return localSec{}, fmt.Errorf("offer a=setup:%s: %w", r.sec.setup, errNotEncrypted)
	}
	fp, err := c.ourFingerprint()
	if err != nil {
		return localSec{}, err
	}
	if had := c.sec.dtls != nil; c.sec.adoptDTLS(client, r.sec.fingerprint, r.sec.tlsID) && had {
		// A new association replaces the running one: ours gets a new
		// tls-id too (RFC 8842 5.3), one the old one's packets cannot name.
		c.sec.tlsID = newTLSID()
	}
	c.sec.proto = r.sec.proto
	setup := map[bool]string{true: "active", false: "passive"}[c.sec.dtls.client]
	return localSec{proto: r.sec.proto, attrs: dtlsAttrs(fp, setup, c.sec.ourTLSID())}, nil
}

// dtlsAnswered reads the answer to our DTLS offer; ok is false when the
// answer is not DTLS-SRTP.
func (c *call) dtlsAnswered(r remoteSDP) (bool, error) {
	if !isDTLSProto(r.sec.proto) {
		return false, nil
	}
	if r.sec.fingerprint == "" {
		return false, fmt.Errorf("answer %s without a=fingerprint: %w", r.sec.proto, errNotEncrypted)
	}
	if !sha256FP(r.sec.fingerprint) {
		// The handshake checks sha-256 (RFC 8122 5: every endpoint
		// supports it) and could only fail: the call ends now (ACK, BYE)
		// instead of going active in silence, as offerUsable refuses
		// such an offer.
		return false, fmt.Errorf("answer %s without a sha-256 a=fingerprint: %w", r.sec.proto, errNotEncrypted)
	}
	switch setup := strings.ToLower(r.sec.setup); {
	case setup == "active":
		c.sec.adoptDTLS(false, r.sec.fingerprint, r.sec.tlsID)
	case setup == "passive":
		c.sec.adoptDTLS(true, r.sec.fingerprint, r.sec.tlsID)
	case c.sec.dtls != nil && strings.EqualFold(c.sec.dtls.fingerprint, r.sec.fingerprint):
		// RFC 5763 5 (and 6.7.1): an answer in a re-INVITE on a running
		// association with the same certificate and an a=setup that is
		// no role (baresip repeats actpass, which an answer may not
		// carry, RFC 4145 4.1) keeps our roles; a new tls-id is still
		// a new association.
		c.sec.adoptDTLS(c.sec.dtls.client, r.sec.fingerprint, r.sec.tlsID)
	case setup == "":
		c.sec.adoptDTLS(true, r.sec.fingerprint, r.sec.tlsID)
	default:
		return false, fmt.Errorf("answer a=setup:%s: %w", r.sec.setup, errNotEncrypted)
	}
	c.sec.proto = r.sec.proto
	return true, nil
}

// adoptDTLS keeps a running association while the far end's certificate,
// the roles and its a=tls-id stay (RFC 5763 6.7.1); a tls-id tells only
// when both SDPs have one, as in audio's StartDTLS. A new fingerprint,
// reversed roles (a re-offer's a=setup:active while we are the client:
// two clients make no association) or a new tls-id (RFC 8842 5: the far
// end restarted its DTLS with the same certificate) is a new plan, which
// startDTLS hands to the same media session: audio's StartDTLS drops the
// old association and its SRTP keys and runs a new handshake (RFC 5763
// 5), so no new media session is needed.
// It reports whether the plan is a new one.
func (s *callSec) adoptDTLS(client bool, fp, tlsID string) bool {
	if d := s.dtls; d != nil && strings.EqualFold(d.fingerprint, fp) && d.client == client &&
		(d.tlsID == "" || tlsID == "" || d.tlsID == tlsID) {
		if d.tlsID == "" {
			d.tlsID = tlsID // from now on it tells (startDTLS tells the media)
		}
		return false
	}
	s.dtls = &dtlsPlan{client: client, fingerprint: fp, tlsID: tlsID}
	s.local, s.offered, s.keys = nil, nil, nil
	return true
}

// srtpWaiter is a media session that can hold everything back until its
// SRTP keys are there (audio.Session).
type srtpWaiter interface{ WaitForSRTP() }

// holdForDTLS keeps a DTLS-SRTP call's media from sending clear RTP
// between Start and startDTLS (the handshake needs the far end's address,
// which Start gives).
func (c *call) holdForDTLS() {
	if d := c.sec.dtls; d != nil && !d.started {
		if w, ok := c.media.(srtpWaiter); ok {
			w.WaitForSRTP()
		}
	}
}

// startDTLS starts the handshake after the media knows the far end's
// address (applyMedia); the call counts as secure from then on, as the
// media sends nothing until the keys are there.
func (c *call) startDTLS() error {
	d := c.sec.dtls
	if d == nil || (d.started && d.toldID == d.tlsID && d.failed == nil) {
		return nil
	}
	ds, ok := c.media.(dtlsStarter)
	if !ok {
		return fmt.Errorf("media session %T: %w", c.media, errNotEncrypted)
	}
	restart := d.failed != nil
	if restart {
		c.p.log.Info("DTLS-SRTP handshake again after it failed during early media", "call", c.id, "error", d.failed)
		d.failed = nil
	}
	if d.started && !restart {
		// The running association's far end named it (a tls-id it did
		// not send before): the media keeps it and learns the name, so
		// that a later new one restarts it there too.
		d.toldID = d.tlsID
		return ds.StartDTLS(audio.DTLSParams{Client: d.client, Fingerprint: d.fingerprint, TLSID: d.tlsID})
	}
	id := c.id
	log := c.p.log
	media := c.media
	d.toldID = d.tlsID
	err := ds.StartDTLS(audio.DTLSParams{Client: d.client, Fingerprint: d.fingerprint, TLSID: d.tlsID, Restart: restart, OnDone: func(err error) {
		if err == nil {
			log.Info("DTLS-SRTP established", "call", id)
			return
		}
		c.post(func() { c.dtlsFailed(media, d, err) })
	}})
	if err != nil {
		return err
	}
	d.started = true
	c.c.Secure = true
	return nil
}

// dtlsFailed ends a call whose DTLS-SRTP handshake failed: the far end's
// certificate does not match its fingerprint (RFC 5763 5: the endpoint
// MUST tear the media session down: someone between may have answered),
// or no handshake came within audio's time. The call stayed up, silent
// for good, with its lock closed, and nothing told the person why. A
// handshake replaced by a new association (a new plan, or new media) or
// one of a call that has gone says nothing. One of early media (no dialog
// to hang up yet) is logged and kept: the answer runs a new handshake
// (a far end that does DTLS only once answered, one whose early media
// came from elsewhere), whose failure ends the call. The answer used to
// take the failed association as it was: the call went active, silent
// for good, and nothing told the person.
func (c *call) dtlsFailed(media MediaSession, d *dtlsPlan, err error) {
	if c.media != media || c.sec.dtls != d || c.c.State == StateEnded {
		return
	}
	switch c.c.State {
	case StateActive, StateHold, StateOnHold, StateConference:
		c.endNotEncrypted(fmt.Errorf("DTLS-SRTP handshake: %w", err))
	default:
		c.p.log.Warn("DTLS-SRTP handshake of early media failed", "call", c.id, "error", err)
		d.failed = err
	}
}

// wantsDTLS reports whether our offers are DTLS-SRTP.
func wantsDTLS(a store.Account) bool { return encryptionWanted(a) == store.MediaEncryptionDTLS }
