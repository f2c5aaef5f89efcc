package sipua

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/softphone/softphone/audio"
	"github.com/softphone/softphone/internal/testpeer"
)

// TestTraceOfTwoPhonesThroughSipgosSocket: with two phones in one process
// (a test's phones, or the old and new stack of a settings change), a
// request sipgo sends from a socket it opens itself (a BYE to a far end's
// Contact the phone never heard from: sipgo dials it from a new port) and
// the answer read on that socket are in the sending phone's trace, not in
// the other's. The trace took a UDP message by the listener's address
// only, so both vanished from every trace.
func TestTraceOfTwoPhonesThroughSipgosSocket(t *testing.T) {
	other, _ := rawCallerPhone(t)
	p, r := rawCallerPhone(t, autoAnswer)
	contact := newRawPeer(t) // where the caller's Contact points

	callID, ftag := uuid.NewString(), "c"+uuid.NewString()[:8]
	body := rawSDP(40000, audio.SendRecv)
	r.write(fmt.Sprintf("INVITE sip:alice@127.0.0.1:%d SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:%d;branch=z9hG4bK%s;rport\r\n"+
		"From: <sip:4930123@127.0.0.1>;tag=%s\r\nTo: <sip:alice@127.0.0.1>\r\nCall-ID: %s\r\nCSeq: 1 INVITE\r\n"+
		"Contact: <sip:raw@127.0.0.1:%d>\r\nMax-Forwards: 70\r\nContent-Type: application/sdp\r\nContent-Length: %d\r\n\r\n%s",
		r.phone.Port, r.port(), uuid.NewString()[:10], ftag, callID, contact.port(), len(body), body))
	ok, found := r.find(10*time.Second, func(m string) bool { return strings.HasPrefix(m, "SIP/2.0 200") })
	if !found {
		t.Fatal("the call was not answered")
	}
	r.write(fmt.Sprintf("ACK sip:alice@127.0.0.1:%d SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:%d;branch=z9hG4bK%s;rport\r\n"+
		"From: <sip:4930123@127.0.0.1>;tag=%s\r\nTo: %s\r\nCall-ID: %s\r\nCSeq: 1 ACK\r\nMax-Forwards: 70\r\nContent-Length: 0\r\n\r\n",
		r.phone.Port, r.port(), uuid.NewString()[:10], ftag, header(ok, "To"), callID))
	c := p.waitState("", StateActive, 5*time.Second)

	hung := make(chan error, 1)
	go func() { hung <- p.Hangup(bg, c.ID) }()
	bye, from := contact.read(t, "BYE ")
	if from.Port == p.stackPort() {
		t.Fatalf("the BYE came from the phone's listener (%v): sipgo opened no socket of its own, the test proves nothing", from)
	}
	res := "SIP/2.0 200 OK\r\n"
	for _, h := range []string{"Via", "From", "To", "Call-ID", "CSeq"} {
		res += h + ": " + header(bye, h) + "\r\n"
	}
	res += "Content-Length: 0\r\n\r\n"
	if _, err := contact.conn.WriteToUDP([]byte(res), from); err != nil {
		t.Fatal(err)
	}
	if err := <-hung; err != nil {
		t.Fatal(err)
	}
	sent := fmt.Sprintf(" sent UDP 0.0.0.0:%d -> 127.0.0.1:%d ===\nBYE ", from.Port, contact.port())
	read := fmt.Sprintf(" received UDP 0.0.0.0:%d <- %s ===\nSIP/2.0 200 OK", from.Port, contact.conn.LocalAddr())
	inTrace := func() bool {
		tr := p.SIPTrace()
		return strings.Contains(tr, sent) && strings.Contains(tr, read)
	}
	if !testpeer.WaitFor(3*time.Second, inTrace) {
		t.Fatalf("the BYE from sipgo's socket (port %d) and its 200 are not both in the phone's trace:\n%s", from.Port, tail(p.SIPTrace()))
	}
	if tr := other.SIPTrace(); strings.Contains(tr, callID) {
		t.Fatalf("the other phone's trace has this call:\n%s", tail(tr))
	}
}
