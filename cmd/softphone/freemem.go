package main

import (
	"context"
	"runtime/debug"
	"time"

	"github.com/softphone/softphone/sipua"
)

// After the last call ends and the phone stays without calls for
// freeMemQuiet, the memory the calls used (buffers, codecs, pion's and the
// SIP stack's state) is handed back to the system at once instead of over
// the runtime's next minutes of scavenging (issue 20: RSS back within 2 MB
// of idle after a burst of calls). It costs one garbage collection per
// quiet spell (two: see freeMemLinger), never one per call.
const freeMemQuiet = 2 * time.Second

// freeMemLinger is when memory is handed back a second time, counted from
// the last call's end: the SIP stack keeps each call's transactions (the
// INVITE's after its 2xx, the BYE's) for 64*T1 = 32 s after their last
// message to absorb retransmissions (RFC 3261 17.2.2 Timer J, RFC 6026
// Timer L), about 10 kB a call. At the first release they are still alive;
// once they are gone nothing allocates in an idle phone, so without this
// no collection would run for minutes and their memory would stay taken
// (issue 20: +15 MB anon 40 s after 1,000 calls, +5 MB after 250).
const freeMemLinger = 32*time.Second + freeMemQuiet

// freeMemAt are the releases of a quiet spell, counted from the last call's
// end.
var freeMemAt = []time.Duration{freeMemQuiet, freeMemLinger}

// callEvents keeps the events that carry a call's state.
func callEvents(e sipua.Event) bool { return sipua.IsCallEvent(e.Kind) }

// freeMemAfterCalls runs until ctx ends or sub closes. sub must be
// lossless: a lost call-ended would leave a call counted forever (which
// only means no early release).
// at are the moments of the releases after the last call's end (freeMemAt).
// freed, when not nil, is called after each release; last says whether it
// was the quiet spell's last.
func freeMemAfterCalls(ctx context.Context, sub *sipua.Subscription, at []time.Duration, freed func(last bool)) {
	live := map[string]bool{}
	stage := 0 // the next release of at
	var quietFrom time.Time
	t := time.NewTimer(time.Hour)
	t.Stop()
	defer t.Stop()
	for {
		// One goroutine reads the subscription and the timer (a second one
		// passing each event on was a switch more per event).
		select {
		case <-ctx.Done():
			return
		case e, ok := <-sub.C():
			if !ok {
				return
			}
			if e.Kind == sipua.EventCallEnded || e.Call.State == sipua.StateEnded {
				delete(live, e.Call.ID)
			} else {
				live[e.Call.ID] = true
			}
			if len(live) == 0 && e.Kind == sipua.EventCallEnded {
				stage, quietFrom = 0, time.Now()
				t.Reset(at[0])
			} else if len(live) > 0 {
				t.Stop()
			}
		case <-t.C:
			debug.FreeOSMemory()
			if freed != nil {
				freed(stage == len(at)-1)
			}
			if stage++; stage < len(at) {
				t.Reset(time.Until(quietFrom.Add(at[stage])))
			}
		}
	}
}
