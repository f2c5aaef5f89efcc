package webhook

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/softphone/softphone/store"
)

// A delivery's outcome is recorded in the outbox after each attempt. When
// that write fails (a full disk), the outcome is kept here instead and the
// dispatcher goes by it: a delivered event is never sent again while the
// process lives, a failed one not before its next retry (issue 14: one event
// was sent 834 times in 10 s because the sender kept re-reading an event
// whose "delivered" mark could not be written). The marks are written to
// the outbox later, with backoff; a crash before that sends the event again
// at the next start (at least once, same Webhook-Id).

// mark is an outcome not yet in the outbox.
type mark struct {
	done     bool // OutboxDone (delivered or given up), else OutboxAttempt
	status   int
	ok       bool
	errText  string
	next     time.Time // for an attempt: when to try again
	attempts int       // attempts made, for the backoff of the next one
}

// marks are the outcomes waiting to be written, by outbox seq.
type marks struct {
	mu      sync.Mutex
	m       map[int64]mark
	backoff storeBackoff
	rlog    rateLog
}

// add keeps an outcome that could not be written.
func (ms *marks) add(seq int64, m mark) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if ms.m == nil {
		ms.m = map[int64]mark{}
	}
	ms.m[seq] = m
}

// pending tells whether outcomes wait to be written.
func (ms *marks) pending() bool {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	return len(ms.m) > 0
}

// hold tells whether ev must not be sent now, and gives an event that may
// be sent the attempts made in memory (so its backoff keeps growing).
func (ms *marks) hold(ev *store.OutboxEvent, now time.Time) bool {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	m, ok := ms.m[ev.Seq]
	if !ok {
		return false
	}
	if m.done || m.next.After(now) {
		return true
	}
	ev.Attempts = max(ev.Attempts, m.attempts)
	return false
}

// store writes the waiting outcomes when the backoff allows; it stops at the
// first failure and waits longer before the next try.
func (s *Sender) storeMarks(ctx context.Context) {
	ms := &s.marks
	ms.mu.Lock()
	if len(ms.m) == 0 || time.Now().Before(ms.backoff.until) {
		ms.mu.Unlock()
		return
	}
	todo := make(map[int64]mark, len(ms.m))
	for k, v := range ms.m {
		todo[k] = v
	}
	ms.mu.Unlock()
	for seq, m := range todo {
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
		s.wmu.Lock()
		var err error
		if m.done {
			err = s.db.OutboxDone(wctx, seq, m.status, m.ok, m.errText)
		} else {
			err = s.db.OutboxAttempt(wctx, seq, m.status, m.errText, m.next)
		}
		s.wmu.Unlock()
		cancel()
		if errors.Is(err, store.ErrNotFound) {
			err = nil // gone already: nothing to write
		}
		s.noteWrite(err)
		ms.mu.Lock()
		if err != nil {
			ms.backoff.fail()
			ms.rlog.fail(s.log, "webhook outcomes not written; kept in memory and tried again", err, "waiting", len(ms.m))
			ms.mu.Unlock()
			return
		}
		if cur, ok := ms.m[seq]; ok && cur == m {
			delete(ms.m, seq)
		}
		ms.mu.Unlock()
	}
	ms.mu.Lock()
	ms.backoff.reset()
	ms.rlog.ok(s.log, "webhook outcomes written again")
	ms.mu.Unlock()
}

// storeBackoff is the wait between tries of failing writes: 1 s doubled up
// to 30 s.
type storeBackoff struct {
	cur   time.Duration
	until time.Time
}

const (
	storeRetryMin = time.Second
	storeRetryMax = 30 * time.Second
)

func (b *storeBackoff) fail() time.Duration {
	b.cur = min(max(2*b.cur, storeRetryMin), storeRetryMax)
	b.until = time.Now().Add(b.cur)
	return b.cur
}

func (b *storeBackoff) reset()        { b.cur, b.until = 0, time.Time{} }
func (b *storeBackoff) failing() bool { return b.cur != 0 }

// rateLog logs a recurring failure at most once a minute, with the number
// of failures not logged in between.
type rateLog struct {
	last       time.Time
	suppressed int
}

func (r *rateLog) fail(log *slog.Logger, msg string, err error, args ...any) {
	now := time.Now()
	if !r.last.IsZero() && now.Sub(r.last) < time.Minute {
		r.suppressed++
		return
	}
	log.Warn(msg, append(args, "err", err, "failures_not_logged", r.suppressed)...)
	r.last, r.suppressed = now, 0
}

func (r *rateLog) ok(log *slog.Logger, msg string) {
	if !r.last.IsZero() {
		log.Info(msg)
		r.last, r.suppressed = time.Time{}, 0
	}
}

// diskNoter hears the outcome of every write (store.DB: the disk-full state
// behind the page's banner).
type diskNoter interface{ NoteWrite(err error) }

func (s *Sender) noteWrite(err error) {
	if n, ok := s.db.(diskNoter); ok {
		n.NoteWrite(err)
	}
}
