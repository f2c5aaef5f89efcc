package sipua

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/softphone/softphone/internal/testpeer"
)

var bg = context.Background()

// bobBaresip is baresip registered at kamailio as bob.
func bobBaresip(t *testing.T, kam *testpeer.Kam, auto bool) *testpeer.Baresip {
	return testpeer.StartBaresip(t, testpeer.BaresipOpts{User: "bob", Pass: "bobpw", Registrar: kam.Addr(), AutoAnswer: auto, Tone: 440})
}

func TestOutgoingAnsweredFourStates(t *testing.T) {
	kam := testpeer.Kamailio(t)
	b := bobBaresip(t, kam, true)
	a := startPhone(t, account(kam, "alice", "udp"), "alicepw")
	a.waitRegistered()
	c, err := a.Dial(bg, "bob", "")
	if err != nil {
		t.Fatal(err)
	}
	if c.State != StateDialing || c.Dialed != "bob" || c.URI != "sip:bob@127.0.0.1" || c.Direction != DirOut {
		t.Fatalf("dialled call %+v", c)
	}
	a.waitState(c.ID, StateActive, 10*time.Second)
	time.Sleep(300 * time.Millisecond) // let media flow a moment: nothing to await
	if err := a.Hangup(bg, c.ID); err != nil {
		t.Fatal(err)
	}
	evs := a.callEvents(c.ID, 5*time.Second)
	all := append([]Event{}, evs...)
	_ = all
	if _, ok := a.Call(c.ID); ok {
		t.Fatal("ended call still listed")
	}
	_ = b
	end := evs[len(evs)-1].Call
	if end.Reason != ReasonLocalHangup || end.Outcome != OutcomeAnswered || end.AnsweredBy != "no" || end.AnsweredAt.IsZero() || end.TalkSeconds() <= 0 {
		t.Fatalf("ended call %+v", end)
	}
}

// TestOutgoingStateSequence checks the whole event sequence of an answered
// outgoing call (webhooks.md: dialing, ringing-out, active, ended).
func TestOutgoingStateSequence(t *testing.T) {
	kam := testpeer.Kamailio(t)
	bobAcc := account(kam, "bob", "udp")
	b := startPhone(t, bobAcc, "bobpw")
	b.waitRegistered()
	a := startPhone(t, account(kam, "alice", "udp"), "alicepw")
	a.waitRegistered()
	var evs []Event
	c, err := a.Dial(bg, "bob", "")
	if err != nil {
		t.Fatal(err)
	}
	in := b.waitState("", StateRingingIn, 10*time.Second)
	a.waitState(c.ID, StateRingingOut, 10*time.Second)
	if err := b.Answer(bg, in.ID); err != nil {
		t.Fatal(err)
	}
	a.waitState(c.ID, StateActive, 10*time.Second)
	if err := b.Hangup(bg, in.ID); err != nil {
		t.Fatal(err)
	}
	evs = a.callEvents(c.ID, 10*time.Second)
	end := evs[len(evs)-1].Call
	if end.Reason != ReasonRemoteHangup || end.Outcome != OutcomeAnswered {
		t.Fatalf("caller end %+v", end)
	}
	bend := b.callEvents(in.ID, 10*time.Second)
	if e := bend[len(bend)-1].Call; e.Reason != ReasonLocalHangup || e.Direction != DirIn || e.Number != "alice" {
		t.Fatalf("callee end %+v", e)
	}
	// The seance id travels in X-Seance-Id.
	if in.SeanceID != c.SeanceID {
		t.Fatalf("seance %s at callee, %s at caller", in.SeanceID, c.SeanceID)
	}
}

func TestOutgoingUnanswered(t *testing.T) {
	kam := testpeer.Kamailio(t)
	b := startPhone(t, account(kam, "bob", "udp"), "bobpw")
	b.waitRegistered()
	a := startPhone(t, account(kam, "alice", "udp"), "alicepw")
	a.waitRegistered()
	for _, tc := range []struct {
		name        string
		callee      func(id string)
		caller      func(id string)
		reason      string
		outcome     string
		calleeState string
	}{
		{name: "busy", reason: ReasonBusy, outcome: OutcomeDeclined},
		{name: "declined", callee: func(id string) { must(t, b.Decline(bg, id)) }, reason: ReasonDeclined, outcome: OutcomeDeclined},
		{name: "cancelled", caller: func(id string) { must(t, a.Hangup(bg, id)) }, reason: ReasonCancelled, outcome: OutcomeMissed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := b.settingsNow()
			s.SIP.DoNotDisturb = tc.name == "busy"
			b.Apply(s)
			c, err := a.Dial(bg, "bob", "")
			if err != nil {
				t.Fatal(err)
			}
			in := b.waitState("", StateRingingIn, 10*time.Second)
			if tc.callee != nil || tc.caller != nil {
				a.waitState(c.ID, StateRingingOut, 10*time.Second)
			}
			if tc.callee != nil {
				tc.callee(in.ID)
			}
			if tc.caller != nil {
				tc.caller(c.ID)
			}
			evs := a.callEvents(c.ID, 10*time.Second)
			end := evs[len(evs)-1].Call
			if end.Reason != tc.reason || end.Outcome != tc.outcome || !end.AnsweredAt.IsZero() {
				t.Fatalf("caller end %+v (states %v)", end, states(evs))
			}
			bevs := b.callEvents(in.ID, 10*time.Second)
			bend := bevs[len(bevs)-1].Call
			want := map[string]string{"busy": OutcomeDeclined, "declined": OutcomeDeclined, "cancelled": OutcomeMissed}[tc.name]
			if bend.Outcome != want {
				t.Fatalf("callee end %+v", bend)
			}
		})
	}
}

func TestIncomingFromBaresip(t *testing.T) {
	kam := testpeer.Kamailio(t)
	bob := bobBaresip(t, kam, false)
	a := startPhone(t, account(kam, "alice", "udp"), "alicepw")
	a.waitRegistered()
	dial := func() Call {
		t.Helper()
		if _, err := bob.Ctrl("dial", fmt.Sprintf("sip:alice@%s", kam.Addr())); err != nil {
			t.Fatal(err)
		}
		c := a.waitState("", StateRingingIn, 10*time.Second)
		if c.Direction != DirIn || c.Number != "bob" || c.Dialed != "" {
			t.Fatalf("incoming %+v", c)
		}
		return c
	}
	t.Run("answered", func(t *testing.T) {
		c := dial()
		must(t, a.Answer(bg, c.ID))
		a.waitState(c.ID, StateActive, 5*time.Second)
		if !bob.WaitLog("Call established", 5*time.Second) {
			t.Fatalf("baresip did not see the call established:\n%s", bob.Log())
		}
		_, _ = bob.Ctrl("hangup")
		evs := a.callEvents(c.ID, 10*time.Second)
		if got := states(evs); !reflect.DeepEqual(got, []string{"ended"}) {
			t.Fatalf("states %v", got)
		}
		if e := evs[len(evs)-1].Call; e.Reason != ReasonRemoteHangup || e.Outcome != OutcomeAnswered || e.StartedAt != c.StartedAt {
			t.Fatalf("end %+v", e)
		}
	})
	t.Run("missed", func(t *testing.T) {
		c := dial()
		_, _ = bob.Ctrl("hangup")
		evs := a.callEvents(c.ID, 10*time.Second)
		if e := evs[len(evs)-1].Call; e.Reason != ReasonCancelled || e.Outcome != OutcomeMissed {
			t.Fatalf("end %+v", e)
		}
	})
	t.Run("declined", func(t *testing.T) {
		c := dial()
		must(t, a.Decline(bg, c.ID))
		evs := a.callEvents(c.ID, 10*time.Second)
		if e := evs[len(evs)-1].Call; e.Reason != ReasonDeclined || e.Outcome != OutcomeDeclined || !e.Declined {
			t.Fatalf("end %+v", e)
		}
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestOutgoingNoAnswerTimeout(t *testing.T) {
	kam := testpeer.Kamailio(t)
	b := startPhone(t, account(kam, "bob", "udp"), "bobpw")
	b.waitRegistered()
	a := startPhone(t, account(kam, "alice", "udp"), "alicepw")
	a.waitRegistered()
	a.noAnswer = 500 * time.Millisecond
	c, err := a.Dial(bg, "bob", "")
	must(t, err)
	in := b.waitState("", StateRingingIn, 10*time.Second)
	evs := a.callEvents(c.ID, 10*time.Second)
	if e := evs[len(evs)-1].Call; e.Reason != ReasonNoAnswer || e.Outcome != OutcomeMissed {
		t.Fatalf("caller end %+v", e)
	}
	bevs := b.callEvents(in.ID, 10*time.Second)
	if e := bevs[len(bevs)-1].Call; e.Reason != ReasonCancelled || e.Outcome != OutcomeMissed {
		t.Fatalf("callee end %+v", e)
	}
}
