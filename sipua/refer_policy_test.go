package sipua

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/softphone/softphone/store"
)

// TestReferFromFarEndNotThroughServersRefused: a far end that is none of
// the account's servers (the phone called it directly, as a sip: link on
// a web page has it do, or it called with sip.accept_calls_from anyone)
// sends REFER naming a number. The phone answers 403 and places no call:
// it accepted every REFER and dialled its target on the user's account,
// so any such far end could have the phone call premium numbers (toll
// fraud). The account's servers still transfer calls
// (TestReferWhileTransferRunsRefused, TestBeingTransferredBySIPp).
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
	t.Cleanup(func() {
		if p.Hangup(bg, c.ID) == nil {
			if bye, ok := r.requestFromPhone("BYE", 5*time.Second); ok {
				r.answer(bye, "200 OK", "", "")
			}
		}
	})
}
