package sipua

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/audio"
	"github.com/softphone/softphone/internal/testpeer"
)

// TestByeWhileOurReinviteWaits: the phone puts a call on hold and the far
// end never answers the re-INVITE (it vanished, or is slow), then hangs
// up. Its BYE is answered 200 at once and the call ends (RFC 3261 15.1.2:
// a BYE ends the session; 15: it is answered even with requests pending);
// the hold gives up with the call. The BYE waited on the call's goroutine
// until the re-INVITE's transaction timed out (32 s): the far end resent
// its BYE for 32 s, the call card stayed up and the line busy meanwhile.
func TestByeWhileOurReinviteWaits(t *testing.T) {
	p, r, c := answeredRawCall(t)
	held := make(chan error, 1)
	go func() { held <- p.Hold(bg, c.ID) }()
	if _, ok := r.requestFromPhone("INVITE", 5*time.Second); !ok {
		t.Fatal("no re-INVITE for the hold")
	}
	// The re-INVITE is left unanswered; the far end hangs up.
	br := r.inDialog("BYE", "", "")
	res, ok := r.find(5*time.Second, func(m string) bool {
		return strings.HasPrefix(m, "SIP/2.0 ") && strings.Contains(header(m, "Via"), br) && statusOf(m) >= 200
	})
	if !ok || statusOf(res) != 200 {
		t.Fatalf("BYE while our re-INVITE waits answered %.40q (within 5 s: %v), want 200", res, ok)
	}
	end := p.waitState(c.ID, StateEnded, 5*time.Second)
	if end.Reason != ReasonRemoteHangup {
		t.Fatalf("ended with reason %q", end.Reason)
	}
	select {
	case err := <-held:
		if err == nil {
			t.Fatal("the hold succeeded on a call that ended")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the hold still waits after the call ended")
	}
}

// TestHangupWhileOurReinviteWaits: the person hangs up while the hold's
// re-INVITE waits for a far end that does not answer. The call ends at
// once and the BYE goes out (RFC 3261 15: either side may end the call
// at any time); Hangup waited on the call's goroutine for the re-INVITE's
// 32 s, so the page's button did nothing and the API's request timed out.
func TestHangupWhileOurReinviteWaits(t *testing.T) {
	p, r, c := answeredRawCall(t)
	held := make(chan error, 1)
	go func() { held <- p.Hold(bg, c.ID) }()
	if _, ok := r.requestFromPhone("INVITE", 5*time.Second); !ok {
		t.Fatal("no re-INVITE for the hold")
	}
	hung := make(chan error, 1)
	go func() { hung <- p.Hangup(bg, c.ID) }()
	select {
	case err := <-hung:
		if err != nil {
			t.Fatalf("hangup: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("hangup still waits for the re-INVITE")
	}
	bye, ok := r.requestFromPhone("BYE", 5*time.Second)
	if !ok {
		t.Fatal("no BYE after the hangup")
	}
	r.answer(bye, "200 OK", "", "")
	if end := p.waitState(c.ID, StateEnded, 5*time.Second); end.Reason != ReasonLocalHangup {
		t.Fatalf("ended with reason %q", end.Reason)
	}
	if err := <-held; err == nil || !errors.Is(err, ErrNoCall) {
		t.Fatalf("the hold: %v, want the call gone", err)
	}
}

// TestHangupWhileTheCallersInfoAwaitsItsAck: a caller's INFO comes before
// the ACK of our 200, and its handler waits for that ACK (it would read
// the ACK as none otherwise, 4735f29); the ACK does not come. The person
// hangs up: the call ends at once. Hang up waited behind the INFO until
// the 200's retransmissions ended (32 s).
func TestHangupWhileTheCallersInfoAwaitsItsAck(t *testing.T) {
	p, r := rawCallerPhone(t, autoAnswer)
	if res := r.invite(""); statusOf(res) != 200 {
		t.Fatalf("auto-answer: %.40q", res)
	}
	c := p.waitState("", StateActive, 5*time.Second)
	r.inDialog("INFO", "Content-Type: application/dtmf-relay\r\n", "")
	// The INFO's handler waits on the call's goroutine once it is there;
	// a hang-up sent after it must not wait for it.
	cc, err := p.get(c.ID)
	must(t, err)
	if !testpeer.WaitFor(5*time.Second, func() bool { return cc.waitingForAck.Load() }) {
		t.Fatal("the INFO is not waiting for the ACK")
	}
	hung := make(chan error, 1)
	go func() { hung <- p.Hangup(bg, c.ID) }()
	select {
	case err := <-hung:
		if err != nil {
			t.Fatalf("hangup: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("hangup waits for the caller's ACK")
	}
	p.waitState(c.ID, StateEnded, 5*time.Second)
	// The ACK that comes late still confirms the 200 (the INFO, refused
	// 481, did not move the dialog's CSeq past it), and the BYE follows.
	r.ack(1, "")
	bye, ok := r.requestFromPhone("BYE", 5*time.Second)
	if !ok {
		t.Fatal("no BYE after the ACK")
	}
	r.answer(bye, "200 OK", "", "")
}

// TestFarEndRequestsWhileBusyBounded: while a request of ours waits for
// the far end (a hold it does not answer), the far end floods INFOs. At
// most maxWaitingRequests of them wait for the call; the others are
// answered 500 with Retry-After at once (RFC 3261 21.5.1), so the flood
// holds no goroutine and no transaction each. Every one waited, up to
// the 32 s of our re-INVITE, without bound.
func TestFarEndRequestsWhileBusyBounded(t *testing.T) {
	p, r, c := answeredRawCall(t)
	held := make(chan error, 1)
	go func() { held <- p.Hold(bg, c.ID) }()
	reinv, ok := r.requestFromPhone("INVITE", 5*time.Second)
	if !ok {
		t.Fatal("no re-INVITE for the hold")
	}
	const n = 100
	for i := 0; i < n; i++ {
		r.inDialog("INFO", "Content-Type: application/dtmf-relay\r\n", "Signal=5\r\nDuration=160\r\n")
	}
	busy := 0
	for busy < n-maxWaitingRequests {
		m, ok := r.find(5*time.Second, func(m string) bool {
			return strings.HasPrefix(m, "SIP/2.0 ") && strings.HasSuffix(header(m, "CSeq"), " INFO")
		})
		if !ok {
			t.Fatalf("%d of %d INFOs answered while the call is busy, want %d", busy, n, n-maxWaitingRequests)
		}
		if statusOf(m) != 500 || header(m, "Retry-After") == "" {
			t.Fatalf("an INFO while the call is busy answered %.60q", m)
		}
		busy++
	}
	// The far end answers the hold: the call goes on.
	r.answer(reinv, "200 OK", "Contact: <sip:raw@127.0.0.1:"+itoa(r.port())+">\r\n", rawSDP(40000, audio.RecvOnly))
	if err := <-held; err != nil {
		t.Fatalf("hold: %v", err)
	}
}
