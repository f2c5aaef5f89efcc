package sipua

import (
	"errors"
	"strings"
	"testing"
	"time"
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
