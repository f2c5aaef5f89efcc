package sipua

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/softphone/softphone/audio"
	"github.com/softphone/softphone/store"
)

// TestInDialogRequestLeavesFromListener: a caller whose Contact is an
// address that never sent the phone a packet (a PBX whose media server or
// B2BUA answers at another port than its proxy, without Record-Route).
// The phone's BYE goes there from its SIP listener, the port its Contact
// and Via name: sipgo's dialog sessions build in-dialog requests without
// the client's local address, so such a request left from a new socket on
// 0.0.0.0 and an ephemeral port, which a port-restricted NAT drops
// answers to, and which with sip.listen on one interface could leave from
// another.
func TestInDialogRequestLeavesFromListener(t *testing.T) {
	for _, listen := range []string{"127.0.0.1:0", "0.0.0.0:0"} { // one interface; all (the default's)
		t.Run(listen, func(t *testing.T) {
			inDialogFromListener(t, func(s *store.Settings) { s.SIP.Listen = listen })
		})
	}
}

func inDialogFromListener(t *testing.T, listen func(*store.Settings)) {
	p, r := rawCallerPhone(t, autoAnswer, listen)
	target := newRawPeer(t) // the Contact: silent until the phone writes to it
	r.cseq = 1
	br := "z9hG4bK" + uuid.NewString()[:10]
	body := rawSDP(40000, audio.SendRecv)
	r.write(fmt.Sprintf("INVITE sip:alice@127.0.0.1:%d SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:%d;branch=%s;rport\r\n"+
		"From: <sip:4930123@127.0.0.1>;tag=%s\r\nTo: <sip:alice@127.0.0.1>\r\nCall-ID: %s\r\nCSeq: 1 INVITE\r\n"+
		"Contact: <sip:media@127.0.0.1:%d>\r\nMax-Forwards: 70\r\nContent-Type: application/sdp\r\nContent-Length: %d\r\n\r\n%s",
		r.phone.Port, r.port(), br, r.ftag, r.callID, target.port(), len(body), body))
	res := r.final(br)
	if statusOf(res) != 200 {
		t.Fatalf("auto-answer: %.40q", res)
	}
	r.ttag = tagOf(header(res, "To"))
	r.ack(1, "")
	c := p.waitState("", StateActive, 5*time.Second)
	if err := p.Hangup(bg, c.ID); err != nil {
		t.Fatal(err)
	}
	bye, from := target.read(t, "BYE ")
	if from.Port != p.stackPort() {
		t.Errorf("BYE from port %d, want the SIP listener's %d", from.Port, p.stackPort())
	}
	res200 := "SIP/2.0 200 OK\r\n"
	for _, h := range []string{"Via", "From", "To", "Call-ID", "CSeq"} {
		res200 += h + ": " + header(bye, h) + "\r\n"
	}
	if _, err := target.conn.WriteToUDP([]byte(res200+"Content-Length: 0\r\n\r\n"), from); err != nil {
		t.Fatal(err)
	}
	p.waitState(c.ID, StateEnded, 5*time.Second)
}
