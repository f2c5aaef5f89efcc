package sipua

import (
	"strings"
	"testing"
	"time"
)

// TestRtpmapRateAndChannelsOutOfRange: an rtpmap's clock rate and channel
// count (RFC 4566 6: <encoding name>/<clock rate>[/<encoding parameters>])
// that are no number, 0, or too large for an RTP clock (32 bits) or a
// channel count, and a channel count we cannot decode (opus is 2 channels,
// RFC 7587 7; PCMU one here) do not make the codec ours. They wrapped at
// 32 and 16 bits, or read as 0 (any rate), and the phone answered such an
// offer with the codec, echoing the stranger's numbers: opus/48000/7,
// PCMU/8000/2 decoded as one channel, a clock of 2^32+8000 taken as 8000.
// An offer with nothing else gets 488 before it rings.
func TestRtpmapRateAndChannelsOutOfRange(t *testing.T) {
	p, r := dtlsRawCallerPhone(t)
	media := newRawPeer(t)
	for i, rtpmap := range []string{
		"111 opus/48000/7",
		"111 opus/48000/65538",              // 2^16+2
		"111 opus/4295015296/2",             // 2^32+48000
		"96 PCMU/4294975296",                // 2^32+8000
		"96 PCMU/-4294959296",               // -(2^32-8000)
		"96 PCMU/abc",                       // read as 0: any rate
		"96 PCMU",                           // no rate: any
		"96 PCMU/8000/2",                    // two channels
		"96 PCMU/8000/0",                    // no channel
		"96 PCMU/8000/18446744073709551617", // 2^64+1
	} {
		pt := strings.Fields(rtpmap)[0]
		r.callID = "rtpmap-" + itoa(i) + "-" + r.ftag
		offer := strings.Replace(rawSDP(media.port(), dirSendRecv), "RTP/AVP 0", "RTP/AVP "+pt, 1)
		offer = strings.Replace(offer, "a=rtpmap:0 PCMU/8000", "a=rtpmap:"+rtpmap, 1)
		br := r.request("INVITE", r.callID, r.ftag, "", 1, "", offer)
		r.cseq, r.invBr = 1, br
		res := r.final(br)
		r.ttag = tagOf(header(res, "To"))
		if statusOf(res) == 488 {
			r.ack(1, br)
			continue
		}
		t.Errorf("a=rtpmap:%s: offer answered %.40q, want 488:\n%s", rtpmap, res, res[strings.Index(res, "\r\n\r\n")+4:])
		if statusOf(res) != 200 {
			continue
		}
		r.ack(1, "")
		c := p.waitState("", StateActive, 5*time.Second)
		must(t, p.Hangup(bg, c.ID))
		if bye, ok := r.requestFromPhone("BYE", 5*time.Second); ok {
			r.answer(bye, "200 OK", "", "")
		}
		p.waitState(c.ID, StateEnded, 5*time.Second)
	}
}
