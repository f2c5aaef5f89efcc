package webhook

import (
	"context"
	"time"
)

// A step of the wall clock backwards (an NTP correction of a clock that ran
// ahead, a virtual machine restored, the clock set by hand, a dual-boot
// computer whose other system keeps the hardware clock in local time) left
// the outbox's retry times (next_at, wall clock) that far in the future: the
// events of a receiver that had vanished, and every later event of those
// calls, waited the step out (an hour, a day) before their next try, and
// did not age toward the 24 h limit meanwhile. So at each turn the
// dispatcher compares the wall clock with the monotonic one; when the wall
// clock went back against it by more than clockStep, the outbox's waiting
// times are moved back as much (store.ShiftOutbox). A wall clock that went
// ahead is left alone: a suspended computer looks the same (the monotonic
// clock stands still while it sleeps), and retry times that passed are due.
// A step back while the phone was not running shows at the first turn as
// events made after now: the times are moved back by at least that much
// (the newest event becomes made now).

// clockStep is the least step back that moves the outbox's times; smaller
// ones (NTP slewing) cost a retry at most that much later.
const clockStep = 2 * time.Second

// clockShifter moves the outbox's times (store.DB implements it).
type clockShifter interface {
	ShiftOutbox(ctx context.Context, now time.Time, d time.Duration) (int64, error)
	NewestOutbox(ctx context.Context) (time.Time, bool, error)
}

// clockWatch follows the wall clock against the monotonic one.
type clockWatch struct {
	started bool
	mono    time.Time     // the first look, with its monotonic reading
	wall    time.Time     // the wall clock then
	skew    time.Duration // wall minus monotonic time elapsed since, at the last look (kept while a shift fails)

	outboxOK bool // the outbox, looked at once, held no event made after the clock's now
}

// step tells how far the wall clock (wall) stepped back since the last look
// against the monotonic clock (mono); 0 when it did not by clockStep.
func (c *clockWatch) step(mono, wall time.Time) (back time.Duration, skew time.Duration) {
	if !c.started {
		c.started, c.mono, c.wall = true, mono, wall.Round(0)
		return 0, 0
	}
	skew = wall.Round(0).Sub(c.wall) - mono.Sub(c.mono)
	if d := skew - c.skew; d < -clockStep {
		return d, skew
	}
	c.skew = skew
	return 0, skew
}

// followClock moves the outbox's waiting times back when the wall clock
// stepped back since the last turn.
func (s *Sender) followClock(ctx context.Context, now time.Time) {
	wall := now
	if s.cfg.wall != nil {
		wall = s.cfg.wall()
	}
	s.clockMu.Lock()
	defer s.clockMu.Unlock()
	d, skew := s.clock.step(now, wall)
	sh, ok := s.db.(clockShifter)
	if !ok {
		s.clock.skew = skew
		return
	}
	wctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	if d == 0 && !s.clock.outboxOK {
		newest, found, err := sh.NewestOutbox(wctx)
		if err != nil {
			return // asked again at the next turn
		}
		s.clock.outboxOK = true
		if ahead := newest.Sub(now.Round(0)); found && ahead > clockStep {
			d = -ahead
		}
	}
	if d == 0 {
		return
	}
	s.wmu.Lock()
	n, err := sh.ShiftOutbox(wctx, now, d)
	s.wmu.Unlock()
	s.noteWrite(err)
	if err != nil {
		// Tried again at the next turn (the clock watch keeps the old skew).
		s.readLog.fail(s.log, "webhook retry times not moved back after the clock went back", err)
		return
	}
	s.clock.skew = skew
	s.log.Warn("the clock went back: webhook retry times moved back as much", "by", (-d).Round(time.Millisecond), "events", n)
}
