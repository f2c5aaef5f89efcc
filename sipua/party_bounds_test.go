package sipua

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/softphone/softphone/audio"
)

// TestCallerPartyBounded: a caller's From is bounded before it reaches the
// call, the history, /events and webhooks. A display name of 600
// characters (with '<', which JSON writes as six bytes, and a control
// character) rings with its first 128 characters; a From user of 300
// digits gets 400 and nothing rings. Both went in whole. (A display name
// far beyond that cannot come by UDP: our 180 would repeat it.)
func TestCallerPartyBounded(t *testing.T) {
	p, r := rawCallerPhone(t)
	sdp := string(buildSDP("127.0.0.1", 40000, []audio.Codec{audio.CodecPCMU}, audio.SendRecv, 1, 1))
	invite := func(display, user string) string {
		br := "z9hG4bK" + uuid.NewString()[:10]
		r.callID, r.ftag = uuid.NewString(), uuid.NewString()[:8]
		r.write(fmt.Sprintf("INVITE sip:alice@127.0.0.1:%d SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:%d;branch=%s;rport\r\n"+
			"From: \"%s\" <sip:%s@127.0.0.1>;tag=%s\r\nTo: <sip:alice@127.0.0.1>\r\nCall-ID: %s\r\nCSeq: 1 INVITE\r\n"+
			"Contact: <sip:raw@127.0.0.1:%d>\r\nMax-Forwards: 70\r\nContent-Type: application/sdp\r\nContent-Length: %d\r\n\r\n%s",
			r.phone.Port, r.port(), br, display, user, r.ftag, r.callID, r.port(), len(sdp), sdp))
		return br
	}

	long := strings.Repeat("<b>Ü", 150) + "\x01"
	invite(long, "4930123")
	c := p.waitState("", StateRingingIn, 5*time.Second)
	if n := utf8.RuneCountInString(c.Name); n > maxNameRunes+1 || !strings.HasPrefix(c.Name, "<b>Ü<b>Ü") || !strings.HasSuffix(c.Name, "…") {
		t.Errorf("caller's name of %d characters: %d kept (%.40q...)", utf8.RuneCountInString(long), n, c.Name)
	}
	if strings.ContainsRune(c.Name, '\x01') {
		t.Errorf("a control character kept in the name")
	}
	if err := p.Hangup(bg, c.ID); err != nil {
		t.Fatalf("hang up: %v; calls %+v\n%s", err, p.Calls(), tail(p.SIPTrace()))
	}
	p.wait("the long-named call ended", 5*time.Second, func(e Event) bool { return e.Kind == EventCallEnded })

	br := invite("Long", strings.Repeat("9", 300))
	var res string
	for res = r.response(br); statusOf(res) == 100; res = r.response(br) {
	}
	if statusOf(res) != 400 {
		t.Fatalf("a From user of 300 digits answered %.40q, want 400", res)
	}
	if n := len(p.Calls()); n != 0 {
		t.Fatalf("%d calls after the 400", n)
	}
}
