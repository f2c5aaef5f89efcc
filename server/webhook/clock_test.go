package webhook

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/softphone/softphone/store"
)

// TestClockStepBackMovesRetries: an event whose retry was due in 2 s when
// the wall clock stepped back by an hour (stored as the outbox holds it
// then: next_at an hour and 2 s ahead, made an hour ahead) is sent within
// seconds of the step, to a receiver that is up, not an hour later; and a
// call's later event, queued behind it, follows. The wall clock cannot be
// stepped on a shared machine, so the dispatcher reads it through the
// test's hook; the database, the outbox and the receiver are real.
func TestClockStepBackMovesRetries(t *testing.T) {
	rc := newReceiver(t, nil)
	var back atomic.Int64 // how far the test's wall clock is behind the real one
	r := newRig(t, settingsFor(rc.URL, "POST"), func(c *Config) {
		c.wall = func() time.Time { return time.Now().Add(-time.Duration(back.Load())) }
		c.Poll = time.Second
	})
	ctx := context.Background()
	now := time.Now()
	call := uuid.NewString()
	for i, ev := range []string{"call-started", "call-ended"} {
		e := store.OutboxEvent{CallID: call, Event: ev, CreatedAt: now.Add(time.Hour - 10*time.Second + time.Duration(i)),
			NextAt: now.Add(time.Hour + 2*time.Second), Attempts: 1 - i,
			Fields: map[string]string{"id": call, "event": ev, "callstate_ts": "1"}}
		if i == 1 {
			e.NextAt = e.CreatedAt
		}
		if ok, err := r.db.EnqueueOutbox(ctx, e, DefaultCapacity); !ok || err != nil {
			t.Fatal(ok, err)
		}
	}
	r.s.poke() // the dispatcher sleeps on the retry
	back.Store(int64(time.Hour))
	r.s.poke()
	deadline := time.After(8 * time.Second)
	for rc.count() < 2 {
		select {
		case <-rc.more:
		case <-deadline:
			t.Fatalf("%d of 2 events sent within 8 s of the clock stepping back an hour", rc.count())
		}
	}
	hits := rc.wait(t, 2)
	if hits[0].Fields["event"] != "call-started" || hits[1].Fields["event"] != "call-ended" {
		t.Errorf("order: %v then %v", hits[0].Fields["event"], hits[1].Fields["event"])
	}
}

// TestClockStepBackWhileStopped: the clock went back an hour while the
// phone was not running; its outbox holds events made "an hour ahead", the
// first waiting for a retry due 2 s after the newest was made. At the start
// they are sent within seconds, in order, not an hour later (the step is
// known to be at least the newest event's lead: the times move back as much).
func TestClockStepBackWhileStopped(t *testing.T) {
	rc := newReceiver(t, nil)
	dir := t.TempDir()
	db := openDB(t, dir)
	ctx := context.Background()
	now := time.Now()
	call := uuid.NewString()
	for i, ev := range []string{"call-started", "call-ended"} {
		e := store.OutboxEvent{CallID: call, Event: ev, CreatedAt: now.Add(time.Hour - 10*time.Second + time.Duration(i)*10*time.Second),
			NextAt: now.Add(time.Hour + 2*time.Second), Attempts: 1 - i,
			Fields: map[string]string{"id": call, "event": ev, "callstate_ts": "1"}}
		if i == 1 {
			e.NextAt = e.CreatedAt
		}
		if ok, err := db.EnqueueOutbox(ctx, e, DefaultCapacity); !ok || err != nil {
			t.Fatal(ok, err)
		}
	}
	s := New(Config{Settings: settingsFor(rc.URL, "POST"), DB: db, Poll: time.Second})
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { _ = s.Serve(sctx); close(done) }()
	defer func() { cancel(); <-done }()
	deadline := time.After(8 * time.Second)
	for rc.count() < 2 {
		select {
		case <-rc.more:
		case <-deadline:
			t.Fatalf("%d of 2 events sent within 8 s of a start an hour behind them", rc.count())
		}
	}
	hits := rc.wait(t, 2)
	if hits[0].Fields["event"] != "call-started" || hits[1].Fields["event"] != "call-ended" {
		t.Errorf("order: %v then %v", hits[0].Fields["event"], hits[1].Fields["event"])
	}
}
