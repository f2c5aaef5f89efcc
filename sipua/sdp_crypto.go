package sipua

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"github.com/pion/sdp/v3"

	"github.com/softphone/softphone/audio"
)

// SDP transport protocols (RFC 3551, RFC 3711 12, RFC 5764 8).
const (
	protoAVP     = "RTP/AVP"
	protoSAVP    = "RTP/SAVP"
	protoSAVPF   = "RTP/SAVPF"
	protoDTLS    = "UDP/TLS/RTP/SAVP"
	protoDTLSF   = "UDP/TLS/RTP/SAVPF"
	maxCryptoTag = 999999999 // RFC 4568 9.1: tag = 1*9DIGIT
)

// sdesSuites are the SDES crypto suites we speak, in the order we offer
// them (RFC 4568 6.2, RFC 7714 12).
var sdesSuites = []struct {
	name    string
	profile audio.SRTPProfile
}{
	{"AES_CM_128_HMAC_SHA1_80", audio.SRTPAES128CMSHA1_80},
	{"AES_CM_128_HMAC_SHA1_32", audio.SRTPAES128CMSHA1_32},
	{"AEAD_AES_128_GCM", audio.SRTPAEADAES128GCM},
}

// cryptoAttr is one a=crypto line (RFC 4568 9.1) with a single inline key
// we can use: key||salt of the suite's lengths, no MKI, no session
// parameters. Its String never shows the key.
type cryptoAttr struct {
	tag     int
	suite   string
	profile audio.SRTPProfile
	key     []byte
	salt    []byte
}

func (c cryptoAttr) String() string { return fmt.Sprintf("crypto %d %s", c.tag, c.suite) }

// value is the attribute value with the key, for our SDP only.
func (c cryptoAttr) value() string {
	return fmt.Sprintf("%d %s inline:%s", c.tag, c.suite,
		base64.StdEncoding.EncodeToString(append(append([]byte{}, c.key...), c.salt...)))
}

// newCrypto makes a line with a fresh random key (RFC 4568 6.1: keys come
// from a cryptographically secure random source).
func newCrypto(tag int, suite string) (cryptoAttr, error) {
	for _, s := range sdesSuites {
		if s.name != suite {
			continue
		}
		b := make([]byte, s.profile.KeyLen()+s.profile.SaltLen())
		if _, err := rand.Read(b); err != nil {
			return cryptoAttr{}, fmt.Errorf("SRTP key: %w", err)
		}
		return cryptoAttr{tag: tag, suite: suite, profile: s.profile,
			key: b[:s.profile.KeyLen()], salt: b[s.profile.KeyLen():]}, nil
	}
	return cryptoAttr{}, fmt.Errorf("SRTP suite %q: %w", suite, errNotEncrypted)
}

// parseCrypto reads one a=crypto value; ok is false for a line we cannot
// use (unknown suite, several keys, an MKI, session parameters, a key of
// the wrong length), which RFC 4568 6.1 lets the answerer skip.
func parseCrypto(v string) (cryptoAttr, bool) {
	f := strings.Fields(v)
	if len(f) != 3 {
		return cryptoAttr{}, false // session parameters (or junk): not understood
	}
	tag, err := strconv.Atoi(f[0])
	if err != nil || tag < 0 || tag > maxCryptoTag {
		return cryptoAttr{}, false
	}
	c := cryptoAttr{tag: tag, suite: f[1]}
	found := false
	for _, s := range sdesSuites {
		if s.name == f[1] {
			c.profile, found = s.profile, true
		}
	}
	kp := f[2]
	if !found || !strings.HasPrefix(kp, "inline:") || strings.Contains(kp, ";") {
		return cryptoAttr{}, false // another key method, or several keys
	}
	kp = strings.TrimPrefix(kp, "inline:")
	if i := strings.IndexByte(kp, '|'); i >= 0 {
		rest := strings.Split(kp[i+1:], "|")
		if len(rest) > 1 || strings.Contains(rest[0], ":") {
			return cryptoAttr{}, false // an MKI: we send none and cannot match it
		}
		kp = kp[:i] // a lifetime: we re-key per offer anyway
	}
	raw, err := base64.StdEncoding.DecodeString(kp)
	if err != nil {
		if raw, err = base64.RawStdEncoding.DecodeString(kp); err != nil {
			return cryptoAttr{}, false
		}
	}
	kl, sl := c.profile.KeyLen(), c.profile.SaltLen()
	if len(raw) != kl+sl {
		return cryptoAttr{}, false
	}
	c.key, c.salt = raw[:kl], raw[kl:]
	return c, true
}

// mediaSec is what a media description says about its security.
type mediaSec struct {
	proto       string       // "RTP/AVP", "RTP/SAVP", "UDP/TLS/RTP/SAVP", ...
	crypto      []cryptoAttr // the a=crypto lines we can use, in the SDP's order
	fingerprint string       // a=fingerprint (RFC 8122), media or session level
	setup       string       // a=setup (RFC 4145): actpass, active, passive
	tlsID       string       // a=tls-id (RFC 8842 4): its DTLS association's name
}

// sha256FP says whether an a=fingerprint value names sha-256, the hash
// function audio's DTLS checks (RFC 8122 5: every endpoint supports it),
// with a hash of its length: 32 bytes as 2UHEX *(":" 2UHEX). A shorter
// or garbled one can match no certificate: such an offer rang, and the
// call was answered only to fail its handshake.
func sha256FP(v string) bool {
	algo, hash, _ := strings.Cut(strings.TrimSpace(v), " ")
	if !strings.EqualFold(algo, "sha-256") {
		return false
	}
	b := strings.Split(strings.TrimSpace(hash), ":")
	if len(b) != 32 {
		return false
	}
	for _, x := range b {
		if len(x) != 2 || strings.Trim(x, "0123456789abcdefABCDEF") != "" {
			return false
		}
	}
	return true
}

// secureProto reports an m= line that demands SRTP (RFC 3711 12: SAVP).
func (m mediaSec) secureProto() bool { return strings.Contains(m.proto, "SAVP") }

// mediaSecOf reads one media description; a=fingerprint and a=setup may
// also be at session level (RFC 8122 5, RFC 4145 4), the media's win. Of
// several a=fingerprint lines at a level (one certificate named with
// several hash functions, RFC 8122 5) the sha-256 one is taken, the one
// the handshake checks; the last line was, so a far end that listed
// sha-1 after sha-256 had its call fail when answered.
func mediaSecOf(md *sdp.MediaDescription, session []sdp.Attribute) mediaSec {
	m := mediaSec{proto: strings.Join(md.MediaName.Protos, "/")}
	for _, l := range [][]sdp.Attribute{session, md.Attributes} {
		levelFP := ""
		for _, a := range l {
			switch a.Key {
			case "fingerprint":
				if v := strings.TrimSpace(a.Value); levelFP == "" || (!sha256FP(levelFP) && sha256FP(v)) {
					levelFP = v
				}
			case "setup":
				m.setup = strings.TrimSpace(a.Value)
			case "tls-id":
				m.tlsID = strings.TrimSpace(a.Value)
			}
		}
		if levelFP != "" {
			m.fingerprint = levelFP
		}
	}
	for _, a := range md.Attributes {
		if a.Key == "crypto" {
			if c, ok := parseCrypto(a.Value); ok {
				m.crypto = append(m.crypto, c)
			}
		}
	}
	return m
}

// localSec is what our media description says: the m= proto and the
// crypto lines.
type localSec struct {
	proto  string
	crypto []cryptoAttr
	attrs  []sdp.Attribute // a=fingerprint, a=setup (media_dtls.go)
	// The m= lines we reject around ours (remoteSDP.others), port 0.
	others  []otherMedia
	audioAt int
}

func (l localSec) apply(md *sdp.MediaDescription) {
	if l.proto != "" {
		md.MediaName.Protos = strings.Split(l.proto, "/")
	}
	for _, c := range l.crypto {
		md.Attributes = append(md.Attributes, sdp.NewAttribute("crypto", c.value()))
	}
	md.Attributes = append(md.Attributes, l.attrs...)
}

// redactCrypto hides the keys of a=crypto lines in a SIP message (for the
// trace): the tag and suite stay, the key parameters become [redacted].
func redactCrypto(s string) string {
	if !containsFold(s, "a=crypto:") {
		return s
	}
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if len(l) < 9 || !strings.EqualFold(l[:9], "a=crypto:") {
			continue
		}
		f := strings.Fields(l[9:])
		keep := f
		if len(keep) > 2 {
			keep = keep[:2]
		}
		end := "\n"
		if strings.HasSuffix(l, "\r\n") {
			end = "\r\n"
		}
		lines[i] = "a=crypto:" + strings.Join(keep, " ") + " [redacted]" + end
	}
	return strings.Join(lines, "")
}
