package sipua

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// TestDialHoldsTheConnectedCall: one conversation at a time. Dialling
// while a call is connected first holds it (re-INVITE sendonly, the state
// hold before the new call starts); answering an incoming call does the
// same; only Conference joins them.
func TestDialHoldsTheConnectedCall(t *testing.T) {
	kam := testpeer.Kamailio(t)
	bobBaresip(t, kam, true)
	testpeer.StartBaresip(t, testpeer.BaresipOpts{User: "carol", Pass: "carolpw", Registrar: kam.Addr(), AutoAnswer: true})
	dave := startPhone(t, account(kam, "dave", "udp"), "davepw")
	acc := account(kam, "alice", "udp")
	a := startPhoneWith(t, store.Settings{SIP: store.SIPSettings{Listen: "127.0.0.1:0"}, Accounts: []store.Account{acc}},
		secretMap{"account:" + acc.ID: "alicepw"}, nil, withAudio(t))
	a.waitRegistered()
	dave.waitRegistered()
	c1 := callBob(t, a, "bob")
	c2, err := a.Dial(bg, "carol", "")
	must(t, err)
	// Dial returned after the hold: the first call is held already.
	if st, _ := a.Call(c1.ID); st.State != StateHold {
		t.Fatalf("first call in %s when the second was dialled, want hold", st.State)
	}
	a.waitState(c2.ID, StateActive, 10*time.Second)
	// An incoming call answered while carol's call is connected holds it.
	in, err := dave.Dial(bg, "alice", "")
	must(t, err)
	ring := a.waitState("", StateRingingIn, 10*time.Second)
	must(t, a.Answer(bg, ring.ID))
	if st, _ := a.Call(c2.ID); st.State != StateHold {
		t.Fatalf("carol's call in %s after answering dave, want hold", st.State)
	}
	if st, _ := a.Call(c1.ID); st.State != StateHold {
		t.Fatalf("bob's call in %s, want still hold", st.State)
	}
	a.waitState(ring.ID, StateActive, 5*time.Second)
	must(t, dave.Hangup(bg, in.ID))
	must(t, a.Hangup(bg, c1.ID))
	must(t, a.Hangup(bg, c2.ID))
}

// TestAutoAnswerHoldsTheConnectedCall: sip.auto_answer keeps one
// conversation at a time when a person is at the phone (audio.require_tab,
// or a tab holds the audio): the connected call is held before the new one
// is answered. With neither, every call is answered at once and the
// connected one stays connected (load tests and scripts rely on that).
func TestAutoAnswerHoldsTheConnectedCall(t *testing.T) {
	kam := testpeer.Kamailio(t)
	bobBaresip(t, kam, true)
	dave := startPhone(t, account(kam, "dave", "udp"), "davepw")
	acc := account(kam, "alice", "udp")
	var tab atomic.Bool
	s := store.Settings{SIP: store.SIPSettings{Listen: "127.0.0.1:0", AutoAnswer: true}, Accounts: []store.Account{acc}}
	a := startPhoneWith(t, s, secretMap{"account:" + acc.ID: "alicepw"}, nil, withAudio(t),
		func(c *Config) { c.TabHeld = tab.Load })
	a.waitRegistered()
	dave.waitRegistered()
	c1 := callBob(t, a, "bob")

	// ring has dave call alice, waits for alice's auto-answer and gives
	// the state bob's call is in once dave's call is connected.
	ring := func() CallState {
		t.Helper()
		in, err := dave.Dial(bg, "alice", "")
		must(t, err)
		r := a.waitState("", StateRingingIn, 10*time.Second)
		a.waitState(r.ID, StateActive, 10*time.Second)
		st, _ := a.Call(c1.ID)
		dave.waitState(in.ID, StateActive, 10*time.Second)
		must(t, dave.Hangup(bg, in.ID))
		a.waitState(r.ID, StateEnded, 10*time.Second)
		return st.State
	}
	if st := ring(); st != StateActive {
		t.Fatalf("no person at the phone: bob's call in %s after auto-answer, want active", st)
	}
	s.Audio.RequireTab = true
	a.Apply(s)
	if st := ring(); st != StateHold {
		t.Fatalf("audio.require_tab: bob's call in %s after auto-answer, want hold", st)
	}
	must(t, a.Resume(bg, c1.ID))
	s.Audio.RequireTab = false
	a.Apply(s)
	tab.Store(true)
	if st := ring(); st != StateHold {
		t.Fatalf("a tab holds the audio: bob's call in %s after auto-answer, want hold", st)
	}
	must(t, a.Hangup(bg, c1.ID))
}
