package sipua

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// TestAutoAnswerWithoutRinging: with sip.auto_answer and nobody at the
// phone, an incoming call is answered with a 200 straight away: no 180
// before it (it rang for no one, issue 20), and the caller goes from
// dialing to active. The call is the same: ringing-in, then active, and
// ended as ever. Without auto-answer the phone rings first (180).
func TestAutoAnswerWithoutRinging(t *testing.T) {
	kam := testpeer.Kamailio(t)
	bob := startPhone(t, account(kam, "bob", "udp"), "bobpw", func(s *store.Settings) { s.SIP.AutoAnswer = true })
	carol := startPhone(t, account(kam, "carol", "udp"), "carolpw")
	a := startPhone(t, account(kam, "alice", "udp"), "alicepw")
	bob.waitRegistered()
	carol.waitRegistered()
	a.waitRegistered()

	c, err := a.Dial(bg, "bob", "")
	must(t, err)
	in := bob.waitState("", StateActive, 10*time.Second)
	must(t, bob.Hangup(bg, in.ID))
	if got := states(a.callEvents(c.ID, 10*time.Second)); !slices.Equal(got, []string{"dialing", "active", "ended"}) {
		t.Errorf("the caller's call went %v", got)
	}
	if tr := bob.SIPTrace(); strings.Contains(tr, "SIP/2.0 180 Ringing") || !strings.Contains(tr, "SIP/2.0 200 OK") {
		t.Fatalf("the auto-answering phone's trace:\n%s", tail(tr))
	}

	c2, err := a.Dial(bg, "carol", "")
	must(t, err)
	a.waitState(c2.ID, StateRingingOut, 10*time.Second)
	ring := carol.waitState("", StateRingingIn, 5*time.Second)
	must(t, carol.Answer(bg, ring.ID))
	a.waitState(c2.ID, StateActive, 10*time.Second)
	must(t, a.Hangup(bg, c2.ID))
	if tr := carol.SIPTrace(); !strings.Contains(tr, "SIP/2.0 180 Ringing") {
		t.Fatalf("the phone without auto-answer did not ring:\n%s", tail(tr))
	}
}
