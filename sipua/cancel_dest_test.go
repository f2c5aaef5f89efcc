package sipua

import (
	"context"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// TestCancelGoesWhereTheInviteWent: an account whose server listens on
// another port than the Request-URI says (Domain plus Port, no outbound
// proxy) and a far end that does not record-route: a hang-up while the
// call rings out sends the CANCEL to that server, as RFC 3261 9.1 asks,
// and the 487 that follows is acknowledged. sipgo sent it to the
// Request-URI's host at port 5060, so the far end rang on.
func TestCancelGoesWhereTheInviteWent(t *testing.T) {
	peer := newRawPeer(t)
	tp := rawAccountPhone(t, peer)
	c, inv, from := dialRinging(t, tp, peer)
	if !strings.HasPrefix(inv, "INVITE sip:123@127.0.0.1 ") {
		t.Fatalf("the Request-URI should name no port here:\n%.80s", inv)
	}
	if err := tp.Hangup(context.Background(), c.ID); err != nil {
		t.Fatal(err)
	}
	cancel, cfrom := peer.read(t, "CANCEL")
	if header(cancel, "Call-ID") != header(inv, "Call-ID") || header(cancel, "Via") != header(inv, "Via") {
		t.Fatalf("CANCEL does not match the INVITE (RFC 3261 9.1):\n%s", cancel)
	}
	peer.reply(t, cancel, cfrom, "200 OK")
	peer.reply(t, inv, from, "487 Request Terminated")
	ack, _ := peer.read(t, "ACK")
	if header(ack, "Call-ID") != header(inv, "Call-ID") {
		t.Fatalf("ACK of another call:\n%s", ack)
	}
}

// rawAccountPhone is a phone with an account at peer (Domain plus Port, no outbound proxy)
// with password "pw", registered.
func rawAccountPhone(t *testing.T, peer *rawPeer) *tphone {
	t.Helper()
	acc := store.Account{ID: uuid.NewString(), Username: "alice", Domain: "127.0.0.1", Port: peer.port(), Transport: "udp", Enabled: true, ExpiryS: 3600}
	tp := startPhoneWith(t, store.Settings{SIP: store.SIPSettings{Listen: "127.0.0.1:0"}, Accounts: []store.Account{acc}}, secretMap{"account:" + acc.ID: "pw"}, nil)
	reg, from := peer.read(t, "REGISTER")
	peer.reply(t, reg, from, "200 OK")
	return tp
}

// dialRinging dials 123 at peer and has the call ring out (180).
func dialRinging(t *testing.T, tp *tphone, peer *rawPeer) (Call, string, *net.UDPAddr) {
	t.Helper()
	c, err := tp.Dial(context.Background(), "123", "")
	if err != nil {
		t.Fatal(err)
	}
	inv, from := peer.read(t, "INVITE")
	peer.reply(t, inv, from, "180 Ringing")
	if !testpeer.WaitFor(10*time.Second, func() bool {
		got, ok := tp.Call(c.ID)
		return ok && got.State == StateRingingOut
	}) {
		t.Fatal("the call did not ring out")
	}
	return c, inv, from
}

// dialHangUp dials 123 at peer and hangs up before any answer; the call
// ends at once.
func dialHangUp(t *testing.T, tp *tphone, peer *rawPeer) (string, *net.UDPAddr) {
	t.Helper()
	c, err := tp.Dial(context.Background(), "123", "")
	if err != nil {
		t.Fatal(err)
	}
	inv, from := peer.read(t, "INVITE")
	if err := tp.Hangup(context.Background(), c.ID); err != nil {
		t.Fatal(err)
	}
	if _, ok := tp.Call(c.ID); ok {
		t.Fatal("the call is still up after the hang-up")
	}
	return inv, from
}

// TestHangupBeforeRingingCancelsLater: a hang-up before any answer to the
// INVITE ends the call at once, and the CANCEL follows the first
// provisional answer (RFC 3261 9.1: not before one), here a 100.
func TestHangupBeforeRingingCancelsLater(t *testing.T) {
	peer := newRawPeer(t)
	tp := rawAccountPhone(t, peer)
	inv, from := dialHangUp(t, tp, peer)
	peer.reply(t, inv, from, "100 Trying")
	cancel, cfrom := peer.read(t, "CANCEL")
	if header(cancel, "Call-ID") != header(inv, "Call-ID") || !strings.HasSuffix(header(cancel, "CSeq"), " CANCEL") {
		t.Fatalf("CANCEL does not match the INVITE:\n%s", cancel)
	}
	peer.reply(t, cancel, cfrom, "200 OK")
	peer.reply(t, inv, from, "487 Request Terminated")
	peer.read(t, "ACK")
	<-tp.inviting.quiet()
}

// TestHangupThenChallengeNoRetry: a far end that challenges the INVITE of a
// call already hung up gets its ACK and no INVITE with credentials: the
// call is not placed again behind the user's back.
func TestHangupThenChallengeNoRetry(t *testing.T) {
	peer := newRawPeer(t)
	tp := rawAccountPhone(t, peer)
	inv, from := dialHangUp(t, tp, peer)
	peer.reply(t, inv, from, "407 Proxy Authentication Required", `Proxy-Authenticate: Digest realm="test", nonce="n1", algorithm=MD5`)
	peer.read(t, "ACK")
	<-tp.inviting.quiet() // the wait for the answer is over
	if n := strings.Count(tp.SIPTrace(), "INVITE sip:123@"); n != 1 {
		t.Fatalf("%d INVITEs sent, want 1:\n%s", n, tp.SIPTrace())
	}
}

// TestAnswerCrossesCancel: the far end answers as the CANCEL of a call hung
// up while ringing reaches it (RFC 3261 9.1: the CANCEL then has no effect).
// The phone confirms that answer and ends the call with a BYE, so nobody is
// left on a line no one hears.
func TestAnswerCrossesCancel(t *testing.T) {
	peer := newRawPeer(t)
	tp := rawAccountPhone(t, peer)
	c, inv, from := dialRinging(t, tp, peer)
	if err := tp.Hangup(context.Background(), c.ID); err != nil {
		t.Fatal(err)
	}
	cancel, cfrom := peer.read(t, "CANCEL")
	contact := "Contact: <sip:123@127.0.0.1:" + strconv.Itoa(peer.port()) + ">"
	peer.reply(t, inv, from, "200 OK", contact)
	peer.reply(t, cancel, cfrom, "481 Call/Transaction Does Not Exist")
	if ack, _ := peer.read(t, "ACK"); header(ack, "Call-ID") != header(inv, "Call-ID") {
		t.Fatalf("ACK of another call:\n%s", ack)
	}
	bye, bfrom := peer.read(t, "BYE")
	if header(bye, "Call-ID") != header(inv, "Call-ID") {
		t.Fatalf("BYE of another call:\n%s", bye)
	}
	peer.reply(t, bye, bfrom, "200 OK")
	<-tp.inviting.quiet()
}

// TestCancelReachesSIPp: SIPp as the server of an account given as Domain
// plus Port (no outbound proxy), ringing without a Record-Route: a hang-up
// while it rings reaches it as a CANCEL, its 487 is acknowledged, and the
// scenario passes (it fails when no CANCEL comes within 10 s).
func TestCancelReachesSIPp(t *testing.T) {
	port, wait := sippUAS(t, "uas_ring_cancel.xml", "-m", "1")
	p := startPhone(t, sippAccount(t, port), "")
	c, err := p.Dial(bg, "ring", "")
	must(t, err)
	p.waitState(c.ID, StateRingingOut, 10*time.Second)
	must(t, p.Hangup(bg, c.ID))
	wait()
}
