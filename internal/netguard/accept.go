// Package netguard keeps the phone's listeners alive under attack: an
// Accept that fails (EMFILE, ENFILE, ENOBUFS, a connection reset before it
// was taken) is retried after a pause instead of ending the server and with
// it the phone (issue 12). It imports nothing of ours.
package netguard

import (
	"errors"
	"log/slog"
	"net"
	"sync/atomic"
	"time"
)

// Backoff bounds: net/http's accept loop (5 ms doubling, at most 1 s).
const (
	minBackoff = 5 * time.Millisecond
	maxBackoff = time.Second
)

// Listener retries failed Accepts until the listener is closed.
type Listener struct {
	net.Listener
	log      *slog.Logger
	failures atomic.Uint64
	closed   atomic.Bool
	sleep    func(time.Duration) // tests
}

// Retry wraps ln. log may be nil.
func Retry(ln net.Listener, log *slog.Logger) *Listener {
	if log == nil {
		log = slog.Default()
	}
	return &Listener{Listener: ln, log: log, sleep: time.Sleep}
}

// Accept gives the next connection. Only a closed listener ends it: every
// other error is logged (once per run of failures) and retried with backoff,
// so the pending connection is taken once a descriptor is free again.
func (l *Listener) Accept() (net.Conn, error) {
	var delay time.Duration
	for {
		c, err := l.Listener.Accept()
		if err == nil {
			return c, nil
		}
		if l.closed.Load() || errors.Is(err, net.ErrClosed) {
			return nil, err
		}
		if delay == 0 {
			delay = minBackoff
			l.log.Warn("accept failed; retrying", "listener", l.Addr().String(), "error", err)
		} else {
			delay = min(2*delay, maxBackoff)
		}
		l.failures.Add(1)
		l.sleep(delay)
	}
}

// Close closes the listener; a pending Accept returns.
func (l *Listener) Close() error {
	l.closed.Store(true)
	return l.Listener.Close()
}

// Failures is how many Accepts failed and were retried.
func (l *Listener) Failures() uint64 { return l.failures.Load() }
