package sipua

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/audio"
)

// tlsIDSyntax is RFC 8842 4's tls-id-value: 20*255 tls-id-char.
var tlsIDSyntax = regexp.MustCompile(`^[A-Za-z0-9+/_-]{20,255}$`)

func sdpAttr(msg, name string) string {
	for _, l := range strings.Split(msg, "\r\n") {
		if v, ok := strings.CutPrefix(l, "a="+name+":"); ok {
			return v
		}
	}
	return ""
}

// TestDTLSOurTLSID: every SDP of ours with a DTLS association carries
// its a=tls-id (RFC 8842 5): the answer, the same one in the answer to a
// re-offer of the same association and in our own re-offer (hold), a new
// one once the far end starts a new association. Our SDP had none.
func TestDTLSOurTLSID(t *testing.T) {
	p, r := dtlsRawCallerPhone(t)
	media := newRawPeer(t)
	fp := "sha-256 " + strings.TrimSuffix(strings.Repeat("AB:", 32), ":")
	dtlsSDP := func(dir audio.Direction, setup, tlsID string) string {
		s := strings.Replace(rawSDP(media.port(), dir), "RTP/AVP", "UDP/TLS/RTP/SAVP", 1)
		return s + "a=fingerprint:" + fp + "\r\na=setup:" + setup + "\r\na=tls-id:" + tlsID + "\r\n"
	}
	br := r.request("INVITE", r.callID, r.ftag, "", 1, "", dtlsSDP(audio.SendRecv, "actpass", "aa01aa01aa01aa01aa01"))
	r.cseq, r.invBr = 1, br
	res := r.final(br)
	first := sdpAttr(res, "tls-id")
	if statusOf(res) != 200 || !tlsIDSyntax.MatchString(first) {
		t.Fatalf("DTLS offer answered %.40q with a=tls-id:%q (want 200 and an RFC 8842 tls-id)", res, first)
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
	reinvite := func(what, tlsID string) string {
		t.Helper()
		res := r.final(r.inDialog("INVITE", "", dtlsSDP(audio.SendRecv, "actpass", tlsID)))
		if statusOf(res) != 200 {
			t.Fatalf("%s: re-INVITE answered %.40q", what, res)
		}
		r.ack(r.cseq, "")
		return sdpAttr(res, "tls-id")
	}
	if got := reinvite("the same association", "aa01aa01aa01aa01aa01"); got != first {
		t.Fatalf("the same association's answer has a=tls-id:%q, the first had %q", got, first)
	}
	held := make(chan error, 1)
	go func() { held <- p.Hold(bg, c.ID) }() // it waits for the re-INVITE's answer
	inv, ok := r.requestFromPhone("INVITE", 5*time.Second)
	if !ok {
		t.Fatal("no re-INVITE for the hold")
	}
	if got := sdpAttr(inv, "tls-id"); got != first {
		t.Fatalf("our re-offer (hold) has a=tls-id:%q, the association's is %q", got, first)
	}
	r.answer(inv, "200 OK", "Contact: <sip:raw@127.0.0.1:"+itoa(r.port())+">\r\n", dtlsSDP(audio.RecvOnly, "passive", "aa01aa01aa01aa01aa01"))
	if _, ok := r.requestFromPhone("ACK", 5*time.Second); !ok {
		t.Fatal("no ACK for the hold's 200")
	}
	must(t, <-held)
	if got := reinvite("a new association", "bb02bb02bb02bb02bb02"); got == first || !tlsIDSyntax.MatchString(got) {
		t.Fatalf("a new association's answer has a=tls-id:%q (the old one was %q)", got, first)
	}
}
