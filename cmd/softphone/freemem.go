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

// startSettle is how long after the start the phone gives back what the
// start used: the garbage of package initialisation and start-up (the
// phone number metadata decoded at init, the migrations, the first
// pages), and its mappings of its executable's pages (internal/exepages:
// most of the 23-26 MB of file pages an idle phone held were touched once,
// by initialisation). Issue 20: idle RSS. The start is the first quiet
// spell, with this one release.
const startSettle = 2 * time.Second

// idleGCGap is the least time between two releases after a collection of
// an idle phone (see freeMemAfterCalls). The runtime forces one every 2
// minutes; more often only when something allocates, and then what that
// something runs is mapped back anyway. A collection that comes sooner
// gets its release when the gap has passed: skipped, what its stack scan
// mapped (the stack maps of every goroutine's frames, 2-4 MB) stayed
// until the next collection, the forced one up to 2 minutes later.
const idleGCGap = 30 * time.Second

// freeMemTimes are the moments of freeMemAfterCalls.
type freeMemTimes struct {
	start     time.Duration    // the start's release (startSettle)
	after     []time.Duration  // the releases after the last call (freeMemAt)
	idleGCGap time.Duration    // least time between releases for collections (idleGCGap)
	now       func() time.Time // the clock idleGCGap is measured on (time.Now)
}

// freeMemDefault are the product's times.
var freeMemDefault = freeMemTimes{start: startSettle, after: freeMemAt, idleGCGap: idleGCGap, now: time.Now}

// release says which release the hook of freeMemAfterCalls is told of.
type release int

const (
	// releaseQuiet: one of a quiet spell's releases before its last; the
	// Go heap was handed back.
	releaseQuiet release = iota
	// releaseLast: the last release of a quiet spell (the start's is
	// one); the Go heap was handed back, and the code the calls ran is no
	// longer wanted.
	releaseLast
	// releaseIdleGC: a collection ran while the phone was idle, its last
	// quiet spell over. Nothing was handed back: the collection read the
	// stack maps (pclntab) and types it needed, which the kernel mapped
	// back, and those alone are worth unmapping again.
	releaseIdleGC
)

// callEvents keeps the events that carry a call's state.
func callEvents(e sipua.Event) bool { return sipua.IsCallEvent(e.Kind) }

// freeMemAfterCalls runs until ctx ends or events closes. events must be
// lossless: a lost call-ended would leave a call counted forever (which
// only means no early release).
// The start is a quiet spell with one release (ts.start); after the last
// call's end, the releases are at the moments of ts.after.
// gc receives after garbage collections (internal/gcnotice; nil: none);
// one that comes while no call is up and no quiet spell runs is a
// releaseIdleGC, at once when the last release is ts.idleGCGap old, else
// when it is (one for any number of collections meanwhile). Never while
// a call is up: the call's code and data would fault back in, in its
// media path.
// freed, when not nil, is called after each release.
func freeMemAfterCalls(ctx context.Context, events <-chan sipua.Event, gc <-chan struct{}, ts freeMemTimes, freed func(release)) {
	live := map[string]bool{}
	spell := []time.Duration{ts.start}
	stage := 0 // the next release of spell; len(spell): none due
	quietFrom := time.Now()
	var lastRelease time.Time
	t := time.NewTimer(spell[0])
	defer t.Stop()
	// later is the release of an idle collection that came within
	// idleGCGap of the last release, due when the gap has passed (laterC
	// nil: none due). Any release, or a call, makes it moot.
	var later *time.Timer
	var laterC <-chan time.Time
	noLater := func() {
		if later != nil {
			later.Stop()
		}
		laterC = nil
	}
	defer noLater()
	tell := func(r release) {
		noLater()
		lastRelease = ts.now()
		if freed != nil {
			freed(r)
		}
	}
	idle := func() bool { return len(live) == 0 && stage == len(spell) }
	for {
		// One goroutine reads the subscription and the timer (a second one
		// passing each event on was a switch more per event).
		select {
		case <-ctx.Done():
			return
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
				spell, stage, quietFrom = ts.after, 0, time.Now()
				t.Reset(spell[0])
			} else if len(live) > 0 {
				t.Stop()
				noLater()
				stage = len(spell) // a new spell starts when the calls end
			}
		case <-t.C:
			debug.FreeOSMemory()
			if stage == len(spell)-1 {
				tell(releaseLast)
			} else {
				tell(releaseQuiet)
			}
			if stage++; stage < len(spell) {
				t.Reset(time.Until(quietFrom.Add(spell[stage])))
			}
		case _, ok := <-gc:
			if !ok {
				gc = nil
				continue
			}
			if !idle() {
				continue
			}
			if wait := ts.idleGCGap - ts.now().Sub(lastRelease); wait <= 0 {
				tell(releaseIdleGC)
			} else if laterC == nil {
				later = time.NewTimer(wait)
				laterC = later.C
			}
		case <-laterC:
			laterC = nil
			if idle() {
				tell(releaseIdleGC)
			}
		}
	}
}
