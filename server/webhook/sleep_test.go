package webhook

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/softphone/softphone/sipua"
)

// sleeps records the sleeps the dispatcher arms (issue 20: an idle phone
// woke every second for the webhook sender).
type sleeps struct {
	mu   sync.Mutex
	all  []time.Duration
	more chan struct{}
}

func (z *sleeps) hear(d time.Duration) {
	z.mu.Lock()
	z.all = append(z.all, d)
	z.mu.Unlock()
	select {
	case z.more <- struct{}{}:
	default:
	}
}

// next waits for the sleep after the first from, and returns it and its index.
func (z *sleeps) next(t *testing.T, from int, what string, ok func(time.Duration) bool) (time.Duration, int) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		z.mu.Lock()
		for i := from; i < len(z.all); i++ {
			if ok(z.all[i]) {
				d := z.all[i]
				z.mu.Unlock()
				return d, i
			}
		}
		got := append([]time.Duration(nil), z.all...)
		z.mu.Unlock()
		select {
		case <-z.more:
		case <-deadline:
			t.Fatalf("no sleep %s; armed: %v", what, got)
		}
	}
}

func serveWith(t *testing.T, cfg Config, hook func(time.Duration)) (*Sender, *sipua.Bus) {
	t.Helper()
	s := New(cfg)
	s.armed = hook
	bus := sipua.NewBus()
	sub := s.Subscribe(bus)
	t.Cleanup(sub.Close)
	s.Consume(sub)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = s.Serve(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return s, bus
}

// With webhooks off, and on with an empty outbox, the dispatcher arms no
// timer at all (it used to tick every Poll); with a retry waiting it sleeps
// until that retry, not a Poll.
func TestIdleSenderSleeps(t *testing.T) {
	rc := newReceiver(t, func(int64, http.ResponseWriter, *http.Request) int { return http.StatusServiceUnavailable })
	on := settingsFor(rc.URL, "POST")
	off := on
	off.Webhooks.Enabled = false
	z := &sleeps{more: make(chan struct{}, 1)}
	const retry = 40 * time.Second
	s, bus := serveWith(t, Config{Settings: off, DB: openDB(t, t.TempDir()),
		RetryBase: retry, RetryMax: retry, Poll: 10 * time.Millisecond}, z.hear)

	d, i := z.next(t, 0, "while off", func(time.Duration) bool { return true })
	if d >= 0 {
		t.Fatalf("webhooks off: armed %v, want no timer", d)
	}
	s.Apply(on)
	d, i = z.next(t, i+1, "after Apply", func(time.Duration) bool { return true })
	if d >= 0 {
		t.Fatalf("empty outbox: armed %v, want no timer", d)
	}
	newCall(bus, sipua.DirIn, "1")
	// After the failed attempt the next wake is the retry: 20-40 s (equal
	// jitter) from the attempt, less the moments since.
	d, _ = z.next(t, i+1, "for the retry", func(d time.Duration) bool { return d > time.Second })
	if d < retry/4 || d > retry {
		t.Errorf("sleeps %v for a retry due in %v-%v", d, retry/2, retry)
	}
	if n := rc.n.Load(); n != 1 {
		t.Errorf("%d attempts before the retry's sleep, want 1", n)
	}
}

// A vanished receiver is tried again on its schedule, by the timer of the
// next retry: Poll is an hour here, so nothing else would wake the sender.
func TestRetryWakesWithoutPoll(t *testing.T) {
	rc := newReceiver(t, func(n int64, _ http.ResponseWriter, _ *http.Request) int {
		if n <= 3 {
			return http.StatusBadGateway
		}
		return http.StatusNoContent
	})
	cnt := &counters{}
	_, bus := serveWith(t, Config{Settings: settingsFor(rc.URL, "POST"), DB: openDB(t, t.TempDir()), Metrics: cnt,
		RetryBase: 10 * time.Millisecond, RetryMax: 50 * time.Millisecond, Poll: time.Hour}, nil)
	newCall(bus, sipua.DirIn, "1")
	rc.wait(t, 1) // the fourth attempt, the first accepted
	eventually(t, "delivered", func() bool { return cnt.delivered.Load() == 1 })
	if cnt.failed.Load() != 3 || rc.n.Load() != 4 {
		t.Errorf("failed %d, attempts %d, want 3 and 4", cnt.failed.Load(), rc.n.Load())
	}
}

// The call-ended of a call a crash cut off is stored in the outbox with its
// history entry, not through the subscription; its Recovered copy on the
// bus wakes the dispatcher, which no longer looks every Poll.
func TestRecoveredEventWakesSender(t *testing.T) {
	rc := newReceiver(t, nil)
	db := openDB(t, t.TempDir())
	cnt := &counters{}
	s, bus := serveWith(t, Config{Settings: settingsFor(rc.URL, "POST"), DB: db, Metrics: cnt, Poll: time.Hour}, nil)
	c := sipua.Call{ID: uuid.NewString(), SeanceID: uuid.NewString(), Direction: sipua.DirIn, State: sipua.StateEnded,
		Number: "7", StartedAt: t0, StateAt: t0, EndedAt: t0, Reason: sipua.ReasonCrashed}
	e := sipua.Event{Kind: sipua.EventCallEnded, At: t0, Call: c, Recovered: true}
	evs := s.Outboxed(e)
	if _, err := db.EnqueueOutboxBatch(context.Background(), evs, DefaultCapacity); err != nil {
		t.Fatal(err)
	}
	bus.Publish(e)
	h := rc.wait(t, 1)
	if h[0].Fields["event"] != "call-ended" || h[0].Fields["id"] != c.ID {
		t.Errorf("got %v", h[0].Fields)
	}
	// A call after it: once it is delivered and the outbox is empty, a
	// second copy of the call-ended (read before it) would have been sent.
	newCall(bus, sipua.DirIn, "8")
	eventually(t, "both delivered, outbox empty", func() bool {
		n, err := db.OutboxLen(context.Background())
		return cnt.delivered.Load() >= 2 && err == nil && n == 0
	})
	if n := rc.count(); n != 2 {
		t.Errorf("%d requests, want 2 (the Recovered copy is not queued again)", n)
	}
}
