package sipua

import (
	"strings"
	"testing"
	"time"
)

// TestFmtpPayloadTypeOutOfRange: a payload type is 7 bits (RFC 3550 5.1,
// RFC 3551 6; an a=fmtp's format names one of the m= line's, RFC 4566
// 6). An offer's a=fmtp:256 was read as the fmtp of payload type 0
// (PCMU, the number wrapped at 8 bits) and the phone's answer gave PCMU
// the stranger's parameters, a=fmtp:0; it is ignored now, as rtpmaps
// over 127 are.
func TestFmtpPayloadTypeOutOfRange(t *testing.T) {
	p, r := dtlsRawCallerPhone(t)
	media := newRawPeer(t)
	for _, pt := range []string{"256", "-256", "384"} {
		r.callID = "fmtp-" + pt + "-" + r.ftag
		offer := strings.Replace(rawSDP(media.port(), dirSendRecv), "a=ptime", "a=fmtp:"+pt+" annexb=no;bogus=1\r\na=ptime", 1)
		br := r.request("INVITE", r.callID, r.ftag, "", 1, "", offer)
		r.cseq, r.invBr = 1, br
		res := r.final(br)
		if statusOf(res) != 200 {
			t.Fatalf("a=fmtp:%s: offer answered %.40q", pt, res)
		}
		r.ttag = tagOf(header(res, "To"))
		r.ack(1, "")
		c := p.waitState("", StateActive, 5*time.Second)
		if strings.Contains(res, "a=fmtp:0 ") {
			t.Errorf("a=fmtp:%s: the answer gives PCMU its parameters:\n%s", pt, res[strings.Index(res, "\r\n\r\n"):])
		}
		must(t, p.Hangup(bg, c.ID))
		if bye, ok := r.requestFromPhone("BYE", 5*time.Second); ok {
			r.answer(bye, "200 OK", "", "")
		}
		p.waitState(c.ID, StateEnded, 5*time.Second)
	}
}
