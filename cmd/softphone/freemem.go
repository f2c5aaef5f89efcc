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
// quiet spell, never one per call.
const freeMemQuiet = 2 * time.Second

// callEvents keeps the events that carry a call's state.
func callEvents(e sipua.Event) bool { return sipua.IsCallEvent(e.Kind) }

// freeMemAfterCalls runs until ctx ends or sub closes. sub must be
// lossless: a lost call-ended would leave a call counted forever (which
// only means no early release).
func freeMemAfterCalls(ctx context.Context, sub *sipua.Subscription, freed func()) {
	live := map[string]bool{}
	t := time.NewTimer(time.Hour)
	t.Stop()
	defer t.Stop()
	events := make(chan sipua.Event)
	go func() {
		defer close(events)
		sub.Each(ctx, func(e sipua.Event) {
			select {
			case events <- e:
			case <-ctx.Done():
			}
		})
	}()
	for {
		select {
		case e, ok := <-events:
			if !ok {
				return
			}
			if e.Kind == sipua.EventCallEnded || e.Call.State == sipua.StateEnded {
				delete(live, e.Call.ID)
			} else {
				live[e.Call.ID] = true
			}
			if len(live) == 0 && e.Kind == sipua.EventCallEnded {
				t.Reset(freeMemQuiet)
			} else if len(live) > 0 {
				t.Stop()
			}
		case <-t.C:
			debug.FreeOSMemory()
			if freed != nil {
				freed()
			}
		}
	}
}
