package sipua

import "slices"

// Taps (issue 20): a subscriber whose work per event is a few counters or a
// map entry (the Prometheus counters, the phone pages' hub, the /events
// backlog) had a goroutine of its own, and every event woke each of them:
// a call's five events woke some twenty goroutines, and each wake that
// finds a processor idle wakes a thread too (a futex call and a context
// switch on each side). A tap is called inside Publish instead, on the
// publisher's goroutine, and never loses an event.

// tap is one Tap.
type tap struct {
	keep func(Event) bool // nil: every event
	fn   func(Event)
}

func (t *tap) take(e Event) {
	if t.keep == nil || t.keep(e) {
		t.fn(e)
	}
}

// Tap calls fn with every event keep says yes to (every event when keep is
// nil), in order, inside Publish: on the publisher's goroutine and under
// the bus lock, so fn sees the events one at a time, in the order of their
// sequence numbers. fn must be quick (no I/O, no waiting on anything but a
// lock held briefly), must not take a lock held by code that publishes, and
// must not publish. untap removes it; fn is not called after untap
// returns.
func (b *Bus) Tap(keep func(Event) bool, fn func(Event)) (untap func()) {
	t := &tap{keep: keep, fn: fn}
	b.mu.Lock()
	b.taps = append(b.taps, t)
	b.mu.Unlock()
	return func() {
		b.mu.Lock()
		b.taps = slices.DeleteFunc(b.taps, func(x *tap) bool { return x == t })
		b.mu.Unlock()
	}
}
