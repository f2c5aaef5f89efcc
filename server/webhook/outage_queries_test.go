package webhook

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/softphone/softphone/store"
)

// askingDB is the real store, counting how often the dispatcher asks it for
// due events and for the next retry.
type askingDB struct {
	*store.DB
	due, next atomic.Int64
}

func (a *askingDB) DueOutbox(ctx context.Context, now time.Time, limit int) ([]store.OutboxEvent, error) {
	a.due.Add(1)
	return a.DB.DueOutbox(ctx, now, limit)
}

func (a *askingDB) NextOutboxAt(ctx context.Context, now time.Time) (time.Time, bool, error) {
	a.next.Add(1)
	return a.DB.NextOutboxAt(ctx, now)
}

// TestOutageAsksOncePerRetry: while the receiver is down, each retry costs
// the outbox one look for due events (one call's events, so the retries
// fall due one at a time, as the jittered retries of many calls mostly do). DueOutbox walks every event queued
// behind the calls' first ones (5.5 ms of CPU at the outbox's 10,000
// events: store.BenchmarkDueOutboxOutage), and the dispatcher asked it
// again after every failed attempt, although a failure makes nothing due
// (its event waits for its retry, the events behind it still wait for it):
// two walks per retry for the whole outage (up to 24 h).
func TestOutageAsksOncePerRetry(t *testing.T) {
	var attempts atomic.Int64
	rc := newReceiver(t, func(int64, http.ResponseWriter, *http.Request) int {
		attempts.Add(1)
		return http.StatusServiceUnavailable
	})
	db := &askingDB{DB: openDB(t, t.TempDir())}
	const calls = 1
	evs := make([]store.OutboxEvent, 0, 3*calls)
	now := time.Now()
	for c := range calls {
		for _, e := range []string{"call-started", "call-state-changed", "call-ended"} {
			evs = append(evs, store.OutboxEvent{DeliveryID: fmt.Sprint(c, e), CallID: fmt.Sprint("call", c), Event: e,
				Fields: map[string]string{"event": e}, NextAt: now, CreatedAt: now})
		}
	}
	if _, err := db.EnqueueOutboxBatch(context.Background(), evs, DefaultCapacity); err != nil {
		t.Fatal(err)
	}
	serveWith(t, Config{Settings: settingsFor(rc.URL, "POST"), DB: db,
		RetryBase: 20 * time.Millisecond, RetryMax: 40 * time.Millisecond, Poll: time.Hour}, nil)
	eventually(t, "100 attempts", func() bool { return attempts.Load() >= 100 })
	n, due, next := attempts.Load(), db.due.Load(), db.next.Load()
	t.Logf("%d attempts: DueOutbox %d, NextOutboxAt %d", n, due, next)
	if float64(due) > 1.2*float64(n) {
		t.Errorf("DueOutbox asked %.2f times per attempt, want at most one", float64(due)/float64(n))
	}
}
