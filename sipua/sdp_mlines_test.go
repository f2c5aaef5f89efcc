package sipua

import (
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/audio"
	"github.com/softphone/softphone/store"
)

// mLines are the m= lines of a SIP message's SDP.
func mLines(msg string) []string {
	var out []string
	for _, l := range strings.Split(msg, "\r\n") {
		if strings.HasPrefix(l, "m=") {
			out = append(out, l)
		}
	}
	return out
}

// TestAnswerKeepsTheOffersMediaLines: an offer of video and audio (a
// video phone's) gets an answer with as many m= lines in the same order,
// the video rejected with port 0 (RFC 3264 6), and the phone's later
// re-INVITE (hold) keeps them (8). The answer had the audio line only:
// pjsip refuses such an answer ("media count mismatch", the call fails)
// and others took our audio for their video line, the first.
func TestAnswerKeepsTheOffersMediaLines(t *testing.T) {
	p, r := rawCallerPhone(t, func(s *store.Settings) { s.SIP.AutoAnswer = true })
	audioSDP := rawSDP(40000, audio.SendRecv)
	head, audioM, _ := strings.Cut(audioSDP, "m=audio")
	sdp := head + "m=video 40010 RTP/AVP 96\r\na=rtpmap:96 H264/90000\r\nm=audio" + audioM +
		"m=text 40020 RTP/AVP 98\r\na=rtpmap:98 t140/1000\r\n"
	br := r.request("INVITE", r.callID, r.ftag, "", 1, "", sdp)
	r.cseq, r.invBr = 1, br
	res := r.final(br)
	if statusOf(res) != 200 {
		t.Fatalf("answered %.40q", res)
	}
	r.ttag = tagOf(header(res, "To"))
	r.ack(1, "")
	c := p.waitState("", StateActive, 5*time.Second)
	t.Cleanup(func() {
		if err := p.Hangup(bg, c.ID); err != nil {
			return
		}
		if bye, ok := r.find(5*time.Second, func(m string) bool {
			return strings.HasPrefix(m, "BYE ") && header(m, "Call-ID") == r.callID
		}); ok {
			r.answer(bye, "200 OK", "", "")
		}
	})
	check := func(what, msg string) {
		t.Helper()
		m := mLines(msg)
		if len(m) != 3 || m[0] != "m=video 0 RTP/AVP 96" || !strings.HasPrefix(m[1], "m=audio ") ||
			strings.HasPrefix(m[1], "m=audio 0 ") || m[2] != "m=text 0 RTP/AVP 98" {
			t.Fatalf("%s: m= lines %q, want video and text rejected around our audio", what, m)
		}
	}
	check("the answer", res)

	held := make(chan error, 1)
	go func() { held <- p.Hold(bg, c.ID) }()
	inv, ok := r.requestFromPhone("INVITE", 10*time.Second)
	if !ok {
		t.Fatal("no re-INVITE for the hold")
	}
	check("the hold's re-INVITE", inv)
	answer := strings.Replace(strings.Replace(sdp, "m=video 40010", "m=video 0", 1), "m=text 40020", "m=text 0", 1)
	r.answer(inv, "200 OK", "Contact: <sip:raw@127.0.0.1>\r\n", strings.Replace(answer, "a=sendrecv", "a=recvonly", 1))
	if _, ok := r.find(5*time.Second, func(m string) bool { return strings.HasPrefix(m, "ACK ") }); !ok {
		t.Fatal("no ACK of the hold's 200")
	}
	must(t, <-held)
}
