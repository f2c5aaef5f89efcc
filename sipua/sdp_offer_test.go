package sipua

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/softphone/softphone/audio"
	"github.com/softphone/softphone/store"
)

// TestUnusableOfferRefusedBeforeRinging: an INVITE whose offer cannot be
// used gets 488 (RFC 3261 21.4.26) before it rings. A c= line naming a
// host (RFC 4566 5.7 allows one) is not looked up: the lookup ran on the
// call's goroutine (a resolver that never answers stalled the INVITE for
// over 10 s) and told the name's owner that this phone exists. The test
// no longer swaps net.DefaultResolver to watch for the query: other
// tests' sipgo goroutines read it (a data race). An offer without a codec
// we speak rang, and failed only when the person answered it.
func TestUnusableOfferRefusedBeforeRinging(t *testing.T) {
	p, r := rawCallerPhone(t)
	host := string(buildSDP("127.0.0.1", 40000, []audio.Codec{audio.CodecPCMU}, audio.SendRecv, 1, 1))
	host = strings.ReplaceAll(host, "IN IP4 127.0.0.1", "IN IP4 media.softphone-test.example")
	gsm := string(buildSDP("127.0.0.1", 40000, []audio.Codec{{Name: "GSM", PT: 3, ClockRate: 8000, Channels: 1}}, audio.SendRecv, 1, 1))
	for _, tc := range []struct{ name, sdp string }{
		{"host name in c=", host},
		{"no common codec", gsm},
	} {
		br := r.request("INVITE", r.callID+tc.name, r.ftag, "", 1, "", tc.sdp)
		var res string
		for res = r.response(br); statusOf(res) == 100; res = r.response(br) {
		}
		if statusOf(res) != 488 {
			t.Fatalf("%s: answered %q, want 488 before ringing", tc.name, strings.SplitN(res, "\r\n", 2)[0])
		}
		r.ack(1, br)
		p.wait(tc.name+": the call ended", 5*time.Second, func(e Event) bool { return e.Kind == EventCallEnded })
		if n := len(p.Calls()); n != 0 {
			t.Fatalf("%s: %d calls after the 488", tc.name, n)
		}
	}
}

// TestMultipartOfferAnswered: a carrier's INVITE whose body is
// multipart/mixed, its SDP beside an ISUP part (SIP-T, RFC 3204; RFC
// 5621), is answered with the SDP part's codec and address. The whole
// body was read as SDP: the call rang and got 488 when answered (auto
// answer here: at once).
func TestMultipartOfferAnswered(t *testing.T) {
	p, r := rawCallerPhone(t, func(s *store.Settings) { s.SIP.AutoAnswer = true })
	sdp := string(buildSDP("127.0.0.1", 40000, []audio.Codec{audio.CodecPCMA}, audio.SendRecv, 1, 1))
	body := "--unique-boundary-1\r\nContent-Type: application/sdp\r\n\r\n" + sdp +
		"\r\n--unique-boundary-1\r\nContent-Type: application/ISUP;version=itu-t92+\r\nContent-Disposition: signal;handling=optional\r\n\r\n" +
		"\x01\x00\x49\x00\x00\x03\x02\x00\x07\x04\x10\x00\x33\x63\x21\x43\x00\x00\x03\r\n--unique-boundary-1--\r\n"
	br := "z9hG4bK" + uuid.NewString()[:10]
	r.write(fmt.Sprintf("INVITE sip:alice@127.0.0.1:%d SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:%d;branch=%s;rport\r\n"+
		"From: \"Carrier\" <sip:4930123@127.0.0.1>;tag=%s\r\nTo: <sip:alice@127.0.0.1>\r\nCall-ID: %s\r\nCSeq: 1 INVITE\r\n"+
		"Contact: <sip:raw@127.0.0.1:%d>\r\nMax-Forwards: 70\r\nMIME-Version: 1.0\r\n"+
		"Content-Type: multipart/mixed;boundary=unique-boundary-1\r\nContent-Length: %d\r\n\r\n%s",
		r.phone.Port, r.port(), br, r.ftag, r.callID, r.port(), len(body), body))
	r.cseq, r.invBr = 1, br
	res := r.final(br)
	if statusOf(res) != 200 || !strings.Contains(res, "RTP/AVP 8") {
		t.Fatalf("multipart offer answered %q, want 200 with PCMA", strings.SplitN(res, "\r\n", 2)[0])
	}
	r.ttag = tagOf(header(res, "To"))
	r.ack(1, "")
	c := p.waitState("", StateActive, 5*time.Second)
	must(t, p.Hangup(bg, c.ID))
	if bye, ok := r.requestFromPhone("BYE", 5*time.Second); ok {
		r.answer(bye, "200 OK", "", "")
	}
}
