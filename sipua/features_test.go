package sipua

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// callBob has phone a call bob (baresip, auto-answer) and waits until active.
func callBob(t *testing.T, a *tphone, number string) Call {
	t.Helper()
	c, err := a.Dial(bg, number, "")
	must(t, err)
	return a.waitState(c.ID, StateActive, 10*time.Second)
}

func TestHoldResumeLocalAndRemote(t *testing.T) {
	kam := testpeer.Kamailio(t)
	bob := bobBaresip(t, kam, true)
	a := startPhone(t, account(kam, "alice", "udp"), "alicepw")
	a.waitRegistered()
	c := callBob(t, a, "bob")

	must(t, a.Hold(bg, c.ID))
	a.waitState(c.ID, StateHold, 5*time.Second)
	must(t, a.Resume(bg, c.ID))
	a.waitState(c.ID, StateActive, 5*time.Second)

	if _, err := bob.Ctrl("hold"); err != nil {
		t.Fatal(err)
	}
	a.waitState(c.ID, StateOnHold, 5*time.Second)
	// Our hold wins over theirs (rest-api.md precedence).
	must(t, a.Hold(bg, c.ID))
	a.waitState(c.ID, StateHold, 5*time.Second)
	must(t, a.Resume(bg, c.ID))
	a.waitState(c.ID, StateOnHold, 5*time.Second)
	if _, err := bob.Ctrl("resume"); err != nil {
		t.Fatal(err)
	}
	a.waitState(c.ID, StateActive, 5*time.Second)

	// Mute changes no state: only a call-updated event.
	must(t, a.SetMute(bg, c.ID, true))
	e := a.wait("mute", 5*time.Second, func(e Event) bool { return e.Call.ID == c.ID && e.Kind != EventDTMF })
	if e.Kind != EventCallUpdated || !e.Call.Muted || e.Call.State != StateActive {
		t.Fatalf("mute gave %s %+v", e.Kind, e.Call)
	}
	must(t, a.Hangup(bg, c.ID))
	a.callEvents(c.ID, 5*time.Second)
}

func TestDTMFWithBaresip(t *testing.T) {
	kam := testpeer.Kamailio(t)
	bob := bobBaresip(t, kam, true)
	acc := account(kam, "alice", "udp")
	a := startPhoneWith(t, store.Settings{SIP: store.SIPSettings{Listen: "127.0.0.1:0"}, Accounts: []store.Account{acc}},
		secretMap{"account:" + acc.ID: "alicepw"}, nil, withAudio(t))
	a.waitRegistered()
	c := callBob(t, a, "bob")
	if err := a.SendDTMF(bg, c.ID, ""); err != ErrNoDigits {
		t.Fatalf("no digits: %v", err)
	}
	if err := a.SendDTMF(bg, c.ID, "1x"); err == nil {
		t.Fatal("bad digit accepted")
	}
	must(t, a.SendDTMF(bg, c.ID, "7#"))
	for _, d := range []string{"7", "#"} {
		if !bob.WaitLog(fmt.Sprintf("received event: '%s'", d), 5*time.Second) {
			t.Fatalf("baresip did not get %s (RFC 4733):\n%s", d, tail(bob.Log()))
		}
	}
	// And the other way: baresip sends RFC 4733, we publish it.
	if _, err := bob.Ctrl("sndcode", "5"); err != nil {
		t.Fatal(err)
	}
	e := a.wait("dtmf from baresip", 5*time.Second, func(e Event) bool { return e.Kind == EventDTMF })
	if e.Digit != "5" || e.Call.ID != c.ID {
		t.Fatalf("dtmf event %+v", e)
	}
	must(t, a.Hangup(bg, c.ID))
}

func TestDTMFByInfoBetweenPhones(t *testing.T) {
	kam := testpeer.Kamailio(t)
	b := startPhone(t, account(kam, "bob", "udp"), "bobpw", func(s *store.Settings) { s.SIP.AutoAnswer = true })
	b.waitRegistered()
	a := startPhone(t, account(kam, "alice", "udp"), "alicepw")
	a.waitRegistered()
	c := callBob(t, a, "bob")
	in := b.waitState("", StateActive, 5*time.Second)
	// Silent media sends no RTP events: INFO (application/dtmf-relay).
	must(t, a.SendDTMF(bg, c.ID, "9*D"))
	var got []string
	b.wait("3 digits", 5*time.Second, func(e Event) bool {
		if e.Kind == EventDTMF && e.Call.ID == in.ID {
			got = append(got, e.Digit)
		}
		return len(got) == 3
	})
	if strings.Join(got, "") != "9*D" {
		t.Fatalf("digits %v", got)
	}
	must(t, a.Hangup(bg, c.ID))
}

func tail(s string) string {
	if len(s) > 3000 {
		return s[len(s)-3000:]
	}
	return s
}

func TestConferenceOfTwoCalls(t *testing.T) {
	kam := testpeer.Kamailio(t)
	bobBaresip(t, kam, true)
	testpeer.StartBaresip(t, testpeer.BaresipOpts{User: "carol", Pass: "carolpw", Registrar: kam.Addr(), AutoAnswer: true})
	acc := account(kam, "alice", "udp")
	a := startPhoneWith(t, store.Settings{SIP: store.SIPSettings{Listen: "127.0.0.1:0"}, Accounts: []store.Account{acc}},
		secretMap{"account:" + acc.ID: "alicepw"}, nil, withAudio(t))
	a.waitRegistered()
	c1 := callBob(t, a, "bob")
	must(t, a.Hold(bg, c1.ID))
	a.waitState(c1.ID, StateHold, 5*time.Second)
	c2 := callBob(t, a, "carol")
	if err := a.Conference(bg, c1.ID, "nope"); !isErr(err, ErrNoCall) {
		t.Fatalf("unknown call: %v", err)
	}
	must(t, a.Conference(bg, c1.ID, c2.ID))
	a.waitState(c1.ID, StateConference, 5*time.Second)
	a.waitState(c2.ID, StateConference, 5*time.Second)
	for _, c := range a.Calls() {
		if c.State != StateConference {
			t.Fatalf("call %s in %s", c.ID, c.State)
		}
		if c.SeanceID != c1.SeanceID {
			t.Fatalf("call %s has seance %s in the conference, want the first call's %s", c.ID, c.SeanceID, c1.SeanceID)
		}
	}
	must(t, a.Hangup(bg, c1.ID))
	must(t, a.Hangup(bg, c2.ID))
}
