package sipua

import (
	"log/slog"
	"time"
)

// A full disk is a state, not a storm (issue 14): a write that fails is
// tried again after a wait that doubles up to a bound, and its failure is
// logged at most once a minute (with the number of failures in between).

// retryBackoff is the wait before the next try of a failed write.
type retryBackoff struct {
	min, max time.Duration
	cur      time.Duration
}

// next is the wait after one more failure: min, then doubled up to max.
func (b *retryBackoff) next() time.Duration {
	switch {
	case b.cur == 0:
		b.cur = b.min
	case b.cur < b.max:
		b.cur = min(2*b.cur, b.max)
	}
	return b.cur
}

// reset starts over after a success.
func (b *retryBackoff) reset() { b.cur = 0 }

// failing reports whether the last try failed.
func (b *retryBackoff) failing() bool { return b.cur != 0 }

// logEvery is the least time between two log lines about the same failure.
const logEvery = time.Minute

// rateLog logs a recurring failure at most once per logEvery.
type rateLog struct {
	last       time.Time
	suppressed int
}

// fail logs err unless it logged within logEvery; then it counts it.
func (r *rateLog) fail(log *slog.Logger, msg string, err error, args ...any) {
	now := time.Now()
	if !r.last.IsZero() && now.Sub(r.last) < logEvery {
		r.suppressed++
		return
	}
	log.Warn(msg, append(args, "error", err, "failures_not_logged", r.suppressed)...)
	r.last, r.suppressed = now, 0
}

// ok logs once that the failing writes succeed again.
func (r *rateLog) ok(log *slog.Logger, msg string, args ...any) {
	if r.last.IsZero() {
		return
	}
	log.Info(msg, args...)
	r.last, r.suppressed = time.Time{}, 0
}
