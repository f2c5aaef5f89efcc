package webhook

import (
	"context"
	"time"
)

// The dispatcher used to look at the outbox every Poll (1 s) whatever there
// was to do, and each reader woke every second to count bus drops: two
// wake-ups a second of an idle phone, with webhooks off and an empty outbox
// too (issue 20). Now it sleeps until it has something to do:
//   - webhooks off: no timer; Apply pokes it.
//   - nothing in flight and no retry waiting: no timer; every enqueue pokes
//     it (a reader's flush, Resend, a recovered call-ended: take).
//   - a retry waiting: a timer for the earliest next_at, so a vanished
//     receiver is tried again on its schedule; at most maxSleep ahead, as a
//     timer stands still while the machine is suspended and the wall clock
//     of next_at does not.
//   - deliveries in flight, events ready for a busy worker, outcomes kept in
//     memory (marks.go) or an outbox that could not be read: every Poll, as
//     before (the phone is busy or its disk failing then, not idle).
//
// Whether a reader needs its tick: a subscription drops an event only while
// its buffer holds others, which the reader reads afterwards and counts the
// drop then (busDrops after every event); what is left at shutdown is
// counted by drain. So it has none.

// maxSleep bounds one sleep while a retry waits.
const maxSleep = time.Minute

// nextRetry is what the sender needs to sleep until a retry (store.DB
// implements it); without it the outbox is looked at every Poll.
type nextRetry interface {
	NextOutboxAt(ctx context.Context, now time.Time) (time.Time, bool, error)
}

// wait is how long the dispatcher may sleep now; below 0: until poked.
// asked is the moment the outbox was last asked for due events: what was
// due then came back from DueOutbox, so the timer is for what was not (a
// retry that fell due since wakes it at once, not never).
func (s *Sender) wait(ctx context.Context, asked time.Time, busy, readFailed bool) time.Duration {
	if busy || readFailed || s.marks.pending() {
		return s.cfg.Poll
	}
	if !s.enabled() {
		return -1
	}
	nr, ok := s.db.(nextRetry)
	if !ok {
		return s.cfg.Poll
	}
	next, ok, err := nr.NextOutboxAt(ctx, asked)
	switch {
	case err != nil:
		if ctx.Err() == nil {
			s.readLog.fail(s.log, "webhook outbox not read", err)
		}
		return s.cfg.Poll
	case !ok:
		return -1
	}
	return min(max(time.Until(next), 0), maxSleep)
}

// sleeper is the dispatcher's one timer. An earlier deadline already armed
// is kept, so a loop that turns more often than Poll still wakes.
type sleeper struct {
	t  *time.Timer
	on bool
	at time.Time
}

func newSleeper() *sleeper {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &sleeper{t: t}
}

// arm sets the timer d ahead (d < 0: none); hook, when set (tests), hears d.
func (z *sleeper) arm(d time.Duration, hook func(time.Duration)) {
	if hook != nil {
		hook(d)
	}
	if d < 0 {
		if z.on {
			z.t.Stop()
			z.on = false
		}
		return
	}
	at := time.Now().Add(d)
	if z.on && !z.at.After(at) {
		return
	}
	z.t.Reset(d)
	z.on, z.at = true, at
}

func (z *sleeper) c() <-chan time.Time { return z.t.C }
func (z *sleeper) fired()              { z.on = false }
func (z *sleeper) stop()               { z.t.Stop() }
