package sipua

import (
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/audio"
	"github.com/softphone/softphone/internal/testpeer"
)

// TestRetransmitted200OfReinviteAckedAgain: the far end answers the hold's
// re-INVITE 200, our ACK is lost (UDP), and the far end sends its 200
// again (RFC 3261 13.3.1.4, every T1, doubling). Each 200 gets an ACK
// (13.2.2.4: MUST), else the far end ends the call after 32 s.
func TestRetransmitted200OfReinviteAckedAgain(t *testing.T) {
	p, r, c := answeredRawCall(t)
	held := make(chan error, 1)
	go func() { held <- p.Hold(bg, c.ID) }()
	reinv, ok := r.requestFromPhone("INVITE", 5*time.Second)
	if !ok {
		t.Fatal("no re-INVITE for the hold")
	}
	ct := "Contact: <sip:raw@127.0.0.1:" + itoa(r.port()) + ">\r\n"
	r.answer(reinv, "200 OK", ct, rawSDP(40000, audio.RecvOnly))
	if _, ok := r.requestFromPhone("ACK", 5*time.Second); !ok {
		t.Fatal("the 200 was not acknowledged")
	}
	if err := <-held; err != nil {
		t.Fatalf("hold: %v", err)
	}
	for i := 0; i < 2; i++ {
		r.answer(reinv, "200 OK", ct, rawSDP(40000, audio.RecvOnly))
		ack, ok := r.find(5*time.Second, func(m string) bool { return strings.HasPrefix(m, "ACK ") })
		if !ok {
			t.Fatalf("the 200 sent again (%d) was not acknowledged\n%s", i+1, tail(p.SIPTrace()))
		}
		if header(ack, "CSeq") != strings.Fields(header(reinv, "CSeq"))[0]+" ACK" {
			t.Fatalf("ACK %q for the re-INVITE %q", header(ack, "CSeq"), header(reinv, "CSeq"))
		}
	}
}

// TestRetransmitted200OfInviteAckedAgain: as above for the 200 to a call
// the phone places.
func TestRetransmitted200OfInviteAckedAgain(t *testing.T) {
	p, r := rawCallerPhone(t)
	placed := make(chan Call, 1)
	go func() { c, _ := p.Dial(bg, "bob", ""); placed <- c }()
	inv, ok := r.requestFromPhone("INVITE", 5*time.Second)
	if !ok {
		t.Fatal("no INVITE")
	}
	to := header(inv, "To") + ";tag=bob1"
	ok200 := "SIP/2.0 200 OK\r\n"
	for _, h := range []string{"Via", "From", "Call-ID", "CSeq"} {
		ok200 += h + ": " + header(inv, h) + "\r\n"
	}
	body := rawSDP(40000, audio.SendRecv)
	ok200 += "To: " + to + "\r\nContact: <sip:bob@127.0.0.1:" + itoa(r.port()) + ">\r\nContent-Type: application/sdp\r\n" +
		"Content-Length: " + itoa(len(body)) + "\r\n\r\n" + body
	r.write(ok200)
	if _, ok := r.requestFromPhone("ACK", 5*time.Second); !ok {
		t.Fatal("the 200 was not acknowledged")
	}
	c := <-placed
	p.waitState(c.ID, StateActive, 5*time.Second)
	for i := 0; i < 2; i++ {
		r.write(ok200)
		if _, ok := r.find(5*time.Second, func(m string) bool { return strings.HasPrefix(m, "ACK ") }); !ok {
			t.Fatalf("the 200 sent again (%d) was not acknowledged", i+1)
		}
	}
	must(t, p.Hangup(bg, c.ID))
	if bye, ok := r.requestFromPhone("BYE", 5*time.Second); ok {
		r.answer(bye, "200 OK", "", "")
	}
}

// TestOur200ToReinviteResentUntilAck: the far end puts the call on hold
// (re-INVITE) and our 200 is lost, or its ACK is: the phone sends the 200
// again, every T1 doubling, until the ACK comes (RFC 3261 13.3.1.4: the
// UAS core MUST); then no more.
func TestOur200ToReinviteResentUntilAck(t *testing.T) {
	p, r, c := answeredRawCall(t)
	br := r.inDialog("INVITE", "", rawSDP(40000, audio.SendOnly))
	first := r.final(br)
	if statusOf(first) != 200 {
		t.Fatalf("re-INVITE answered %.40q", first)
	}
	again, ok := r.find(5*time.Second, func(m string) bool {
		return strings.HasPrefix(m, "SIP/2.0 200") && strings.Contains(header(m, "Via"), br)
	})
	if !ok {
		t.Fatalf("our 200 to the re-INVITE was not sent again without an ACK\n%s", tail(p.SIPTrace()))
	}
	if header(again, "CSeq") != header(first, "CSeq") {
		t.Fatalf("sent again: %q", header(again, "CSeq"))
	}
	cc, err := p.get(c.ID)
	must(t, err)
	if cc.reinvAck.Load() == nil {
		t.Fatal("nothing waits for the ACK")
	}
	r.ack(r.cseq, "")
	p.waitState(c.ID, StateOnHold, 5*time.Second)
	// The ACK ends the retransmissions.
	if !testpeer.WaitFor(5*time.Second, func() bool { return cc.reinvAck.Load() == nil }) {
		t.Fatal("our 200 is still sent again after the ACK")
	}
}
