package sipua

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/softphone/softphone/audio"
	"github.com/softphone/softphone/store"
)

// TestReferFromFarEndNotThroughServersRefused: a far end that is none of
// the account's servers (the phone called it directly, as a sip: link on
// a web page has it do, or it called with sip.accept_calls_from anyone)
// sends REFER naming a number. The phone answers 403 and places no call:
// it accepted every REFER and dialled its target on the user's account,
// so any such far end could have the phone call premium numbers (toll
// fraud). The account's servers still transfer calls
// (TestReferWhileTransferRunsRefused, TestBeingTransferredBySIPp), and so
// does the host that delivered a call to the Contact the account
// registered (a provider's edge).
func TestReferFromFarEndNotThroughServersRefused(t *testing.T) {
	peer := newRawPeer(t)
	// The account's servers are at 127.0.0.3; the caller is on 127.0.0.1.
	acc := store.Account{ID: uuid.NewString(), Username: "alice", Domain: "127.0.0.3", Port: peer.port(), Transport: "udp", Enabled: true}
	p := startPhone(t, acc, "", autoAnswer, anyone)
	r := &rawCaller{rawPeer: peer, t: t, phone: &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: p.stackPort()},
		callID: uuid.NewString(), ftag: "c" + uuid.NewString()[:8]}
	if res := r.invite(""); statusOf(res) != 200 {
		t.Fatalf("auto-answer: %.40q", res)
	}
	r.ack(1, "")
	c := p.waitState("", StateActive, 5*time.Second)
	br := r.inDialog("REFER", "Refer-To: <sip:09005123456@127.0.0.3>\r\nReferred-By: <sip:4930123@127.0.0.1>\r\n", "")
	if res := r.final(br); statusOf(res) != 403 {
		t.Fatalf("REFER from a far end not through the account's servers answered %.40q, want 403", res)
	}
	if tr := p.SIPTrace(); strings.Contains(tr, "INVITE sip:0900") {
		t.Fatalf("the phone called the REFER's target\n%s", tail(tr))
	}
	if got, ok := p.Call(c.ID); !ok || got.State != StateActive || len(p.Calls()) != 1 {
		t.Fatalf("after the REFER: %+v, %d calls", got, len(p.Calls()))
	}
	if p.Hangup(bg, c.ID) == nil {
		if bye, ok := r.requestFromPhone("BYE", 5*time.Second); ok {
			r.answer(bye, "200 OK", "", "")
		}
	}

	// The same host delivering a call to the Contact the account
	// registered is the provider's edge (only the registrar learns that
	// user): its REFER is followed.
	p.mu.Lock()
	secret := p.lines[acc.ID].contactUser
	p.mu.Unlock()
	r2 := &rawCaller{rawPeer: peer, t: t, phone: r.phone, callID: uuid.NewString(), ftag: "e" + uuid.NewString()[:8]}
	body := rawSDP(40000, audio.SendRecv)
	br = "z9hG4bK" + uuid.NewString()[:10]
	r2.write(fmt.Sprintf("INVITE sip:%s@127.0.0.1:%d SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:%d;branch=%s;rport\r\n"+
		"From: <sip:4930123@127.0.0.1>;tag=%s\r\nTo: <sip:alice@127.0.0.1>\r\nCall-ID: %s\r\nCSeq: 1 INVITE\r\n"+
		"Contact: <sip:raw@127.0.0.1:%d>\r\nMax-Forwards: 70\r\nContent-Type: application/sdp\r\nContent-Length: %d\r\n\r\n%s",
		secret, r.phone.Port, peer.port(), br, r2.ftag, r2.callID, peer.port(), len(body), body))
	res := r2.final(br)
	if statusOf(res) != 200 {
		t.Fatalf("the edge's call answered %.40q", res)
	}
	r2.ttag, r2.cseq = tagOf(header(res, "To")), 1
	r2.ack(1, "")
	c2 := p.waitState("", StateActive, 5*time.Second)
	br = r2.inDialog("REFER", "Refer-To: <sip:111@127.0.0.3>\r\n", "")
	if res := r2.final(br); statusOf(res) != 202 {
		t.Fatalf("REFER from the edge that delivered the call answered %.40q, want 202", res)
	}
	if n, ok := r2.requestFromPhone("NOTIFY", 5*time.Second); ok {
		r2.answer(n, "200 OK", "", "") // 100 Trying: the call is placed after it
	}
	if nc := p.wait("the transfer's call", 5*time.Second, func(e Event) bool {
		return e.Kind == EventCallStarted && e.Call.Direction == DirOut
	}); nc.Call.Number != "111" || nc.Call.SeanceID != c2.SeanceID {
		t.Fatalf("the transfer's call %+v", nc.Call)
	}
	for _, cl := range p.Calls() {
		_ = p.Hangup(bg, cl.ID)
	}
	if bye, ok := r2.find(5*time.Second, func(m string) bool {
		if strings.HasPrefix(m, "NOTIFY ") {
			r2.answer(m, "200 OK", "", "")
		}
		return strings.HasPrefix(m, "BYE ")
	}); ok {
		r2.answer(bye, "200 OK", "", "")
	}
}
