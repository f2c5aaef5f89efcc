package main

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/softphone/softphone/sipua"
)

// fakeClock is the clock idleGCGap is measured on, moved by the test.
type fakeClock struct{ off atomic.Int64 }

func (c *fakeClock) now() time.Time          { return time.Unix(1e9, 0).Add(time.Duration(c.off.Load())) }
func (c *fakeClock) advance(d time.Duration) { c.off.Add(int64(d)) }

// keeper runs freeMemAfterCalls on unbuffered channels: once a send to
// either returns, everything sent before it has been dealt with, so the
// test can look at what was released without waiting for anything.
type keeper struct {
	t      *testing.T
	events chan sipua.Event
	gc     chan struct{}
	freed  chan release
	clock  *fakeClock
}

func startKeeper(t *testing.T, ts freeMemTimes) *keeper {
	k := &keeper{t: t, events: make(chan sipua.Event), gc: make(chan struct{}), freed: make(chan release, 16), clock: &fakeClock{}}
	ts.now = k.clock.now
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		freeMemAfterCalls(ctx, k.events, k.gc, ts, func(r release) { k.freed <- r })
	}()
	t.Cleanup(func() { cancel(); <-done })
	return k
}

func (k *keeper) call(kind sipua.EventKind, id string, st sipua.CallState) {
	k.events <- sipua.Event{Kind: kind, Call: sipua.Call{ID: id, State: st}}
}

// collected tells the keeper of a collection, and returns once it has
// dealt with it (the second send is taken only after the first's work).
func (k *keeper) collected() {
	k.gc <- struct{}{}
	k.gc <- struct{}{}
}

// next waits for the next release.
func (k *keeper) next(what string) release {
	k.t.Helper()
	select {
	case r := <-k.freed:
		return r
	case <-time.After(20 * time.Second):
		k.t.Fatalf("no release: %s", what)
		return 0
	}
}

// none says that nothing was released so far.
func (k *keeper) none(what string) {
	k.t.Helper()
	select {
	case r := <-k.freed:
		k.t.Fatalf("release %d: %s", r, what)
	default:
	}
}

// TestFreeMemAfterLastCall: memory is handed back after the last of two
// calls ends, not while one is still up, and once more later (when the SIP
// transactions are gone: here a second after the first).
func TestFreeMemAfterLastCall(t *testing.T) {
	k := startKeeper(t, freeMemTimes{start: time.Hour, after: []time.Duration{freeMemQuiet, freeMemQuiet + time.Second}, idleGCGap: time.Minute})
	k.call(sipua.EventCallStarted, "a", sipua.StateRingingIn)
	k.call(sipua.EventCallStarted, "b", sipua.StateRingingIn)
	k.call(sipua.EventCallStateChanged, "a", sipua.StateActive)
	k.call(sipua.EventCallEnded, "a", sipua.StateEnded)
	// b still rings: a quiet spell longer than freeMemQuiet frees nothing.
	select {
	case <-k.freed:
		t.Fatal("memory released while a call was up")
	case <-time.After(freeMemQuiet + time.Second):
	}
	k.call(sipua.EventCallEnded, "b", sipua.StateEnded)
	if r := k.next("after the last call ended"); r != releaseQuiet {
		t.Fatalf("the first release is %d, want releaseQuiet", r)
	}
	if r := k.next("a second time"); r != releaseLast {
		t.Fatalf("the second release is %d, want releaseLast", r)
	}
	// Two releases a quiet spell, no more.
	select {
	case <-k.freed:
		t.Fatal("memory released a third time")
	case <-time.After(2 * time.Second):
	}
}

// TestFreeMemAtStart: the start is a quiet spell of one release.
func TestFreeMemAtStart(t *testing.T) {
	k := startKeeper(t, freeMemTimes{start: 10 * time.Millisecond, after: freeMemAt, idleGCGap: time.Minute})
	if r := k.next("after the start"); r != releaseLast {
		t.Fatalf("the start's release is %d, want releaseLast", r)
	}
}

// TestFreeMemAfterIdleGC: a collection of an idle phone is a release, at
// most one per idleGCGap; never while a call is up, ringing or not, nor
// during the quiet spell after it (its last release does that).
func TestFreeMemAfterIdleGC(t *testing.T) {
	const gap = time.Minute
	k := startKeeper(t, freeMemTimes{start: 10 * time.Millisecond, after: []time.Duration{10 * time.Millisecond, time.Hour}, idleGCGap: gap})
	// During the start's spell: nothing (its release is to come).
	k.clock.advance(2 * gap)
	k.collected()
	if r := k.next("after the start"); r != releaseLast {
		t.Fatalf("the start's release is %d, want releaseLast", r)
	}
	k.none("a collection during the start's quiet spell")

	k.collected()
	k.none("a collection within idleGCGap of the last release")
	k.clock.advance(gap)
	k.collected()
	if r := k.next("a collection of an idle phone"); r != releaseIdleGC {
		t.Fatalf("release %d, want releaseIdleGC", r)
	}
	k.collected()
	k.none("a second collection within idleGCGap")

	k.call(sipua.EventCallStarted, "a", sipua.StateRingingIn)
	k.clock.advance(gap)
	k.collected()
	k.none("a collection while a call rings")
	k.call(sipua.EventCallStateChanged, "a", sipua.StateActive)
	k.collected()
	k.none("a collection while a call is up")

	k.call(sipua.EventCallEnded, "a", sipua.StateEnded)
	if r := k.next("after the call"); r != releaseQuiet {
		t.Fatalf("release %d, want releaseQuiet", r)
	}
	k.clock.advance(gap)
	k.collected()
	k.none("a collection in the quiet spell after a call (before its last release)")

	// A closed notice channel (gcnotice stopped) is no busy loop: calls
	// are still followed.
	close(k.gc)
	k.call(sipua.EventCallStarted, "b", sipua.StateRingingIn)
	k.call(sipua.EventCallEnded, "b", sipua.StateEnded)
	if r := k.next("after call b"); r != releaseQuiet {
		t.Fatalf("release %d, want releaseQuiet", r)
	}
}

// TestFreeMemIdleGCTooSoonComesLater: a collection of an idle phone within
// idleGCGap of the last release gets its release when the gap has passed
// (one for several collections), not at the next collection minutes later;
// a call in between makes it moot.
func TestFreeMemIdleGCTooSoonComesLater(t *testing.T) {
	const gap = 300 * time.Millisecond
	k := startKeeper(t, freeMemTimes{start: 10 * time.Millisecond, after: []time.Duration{10 * time.Millisecond}, idleGCGap: gap})
	if r := k.next("after the start"); r != releaseLast {
		t.Fatalf("the start's release is %d, want releaseLast", r)
	}
	k.collected()
	k.collected()
	k.none("collections within idleGCGap of the start's release")
	if r := k.next("when idleGCGap has passed"); r != releaseIdleGC {
		t.Fatalf("release %d, want releaseIdleGC", r)
	}
	// One release for both collections: nothing more within two gaps.
	select {
	case r := <-k.freed:
		t.Fatalf("a second release %d for the same collections", r)
	case <-time.After(2 * gap):
	}

	// A call makes the due release moot: the call's own spell releases.
	k.collected()
	k.call(sipua.EventCallStarted, "a", sipua.StateRingingIn)
	select {
	case r := <-k.freed:
		t.Fatalf("release %d while a call rings", r)
	case <-time.After(2 * gap):
	}
	k.call(sipua.EventCallEnded, "a", sipua.StateEnded)
	if r := k.next("after the call"); r != releaseLast {
		t.Fatalf("release %d, want releaseLast", r)
	}
}
