package main

import (
	"context"
	"os"
	"runtime"

	"github.com/softphone/softphone/sipua"
)

// While a call is connected (active, on hold either way or in a conference:
// media flows) the phone runs Go code on one processor (GOMAXPROCS 1) and goes
// back to the default when no call is. Ringing calls do not count: a burst of
// calls that ring and end must not resize the scheduler for each one (a
// resize stops the world for a moment). A bridged call is
// 50 packets a second each way, each passed between several goroutines
// inside pion; with more than one processor nearly every hand-off wakes a
// sleeping thread (a futex call each), and that, not the packets, was most
// of the phone's CPU in a call (bench/callcpu: 1.8 % of a core against
// baresip's 1.5 % for the same call; 1.7 % against 1.75 % on one processor).
// A call needs no parallelism; the API and webhooks keep all processors
// while no call is up. A GOMAXPROCS set in the environment is left alone.

// procsPolicy follows the calls on the bus and sets GOMAXPROCS.
type procsPolicy struct {
	live    map[string]bool // calls connected
	one     bool            // GOMAXPROCS is 1 because of them
	changed func(n int)     // tests: told every change
}

// oneProcDuringCalls runs the policy until ctx ends or sub closes, then
// restores the default. sub must be lossless: a lost call-ended would leave
// the phone on one processor.
func oneProcDuringCalls(ctx context.Context, sub *sipua.Subscription, changed func(int)) {
	if os.Getenv("GOMAXPROCS") != "" {
		return
	}
	p := &procsPolicy{live: map[string]bool{}, changed: changed}
	defer p.set(false)
	sub.Each(ctx, p.see)
}

// callEvents keeps the events that carry a call's state.
func callEvents(e sipua.Event) bool { return sipua.IsCallEvent(e.Kind) }

func (p *procsPolicy) see(e sipua.Event) {
	switch e.Call.State {
	case sipua.StateActive, sipua.StateHold, sipua.StateOnHold, sipua.StateConference:
		p.live[e.Call.ID] = true
	default:
		delete(p.live, e.Call.ID)
	}
	p.set(len(p.live) > 0)
}

func (p *procsPolicy) set(one bool) {
	if one == p.one {
		return
	}
	p.one = one
	if one {
		runtime.GOMAXPROCS(1)
	} else {
		runtime.SetDefaultGOMAXPROCS()
	}
	if p.changed != nil {
		p.changed(runtime.GOMAXPROCS(0))
	}
}
