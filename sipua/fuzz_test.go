package sipua

import (
	"strings"
	"testing"

	"github.com/softphone/softphone/audio"
)

// FuzzHeaders feeds outside input to every parser the phone adds on top of
// sipgo: Replaces, INFO DTMF bodies, sipfrag bodies, URI header escapes and
// SDP. None may panic; what parses must round-trip where it can.
func FuzzHeaders(f *testing.F) {
	for _, s := range []string{
		"abc@host;to-tag=t1;from-tag=f1", "a;to-tag=;from-tag=x", "Signal=5\r\nDuration=160\r\n", "signal=15",
		"SIP/2.0 200 OK\r\n", "SIP/2.0 99999 x", "%41%4", "%zz",
		"v=0\r\no=- 1 1 IN IP4 1.2.3.4\r\ns=-\r\nc=IN IP4 1.2.3.4\r\nt=0 0\r\nm=audio 1 RTP/AVP 0 101\r\na=rtpmap:101 telephone-event/8000\r\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if r, err := parseReplaces(s); err == nil {
			r2, err := parseReplaces(r.String())
			if err != nil || r2.callID != r.callID || r2.toTag != r.toTag || r2.fromTag != r.fromTag {
				// Tags holding ';' or '=' cannot round-trip; only check clean ones.
				if !strings.ContainsAny(r.toTag+r.fromTag+r.callID, ";= \t\r\n") {
					t.Fatalf("replaces round trip %q -> %+v -> %+v %v", s, r, r2, err)
				}
			}
			if unescape(escapeHeaderValue(r.String())) != r.String() {
				t.Fatalf("escape round trip of %q", r.String())
			}
		}
		for _, ct := range []string{"application/dtmf-relay", "application/dtmf"} {
			if d, ok := parseDTMFInfo(ct, []byte(s)); ok && !validDigit(d) {
				t.Fatalf("digit %q from %q", d, s)
			}
		}
		if code, _, ok := parseSipfrag([]byte(s)); ok && (code < 100 || code > 699) {
			t.Fatalf("status %d", code)
		}
		_ = unescape(s)
		if r, err := parseSDP([]byte(s)); err == nil {
			_, _ = choose(r, audio.CodecsByPriority(nil), true)
			_, _ = choose(r, audio.CodecsByPriority(nil), false)
		}
	})
}
