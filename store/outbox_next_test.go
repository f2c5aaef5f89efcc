package store

import (
	"context"
	"testing"
	"time"
)

// NextOutboxAt is the earliest next_at after now (the webhook sender sleeps
// until it); events due already are DueOutbox's, not counted here.
func TestNextOutboxAt(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	now := time.Now()
	if _, ok, err := db.NextOutboxAt(ctx, now); err != nil || ok {
		t.Fatalf("empty outbox: ok %v, %v", ok, err)
	}
	soon, later := now.Add(time.Minute), now.Add(time.Hour)
	for _, ev := range []OutboxEvent{
		{DeliveryID: "due", CallID: "a", Event: "call-started", NextAt: now.Add(-time.Second)},
		{DeliveryID: "later", CallID: "b", Event: "call-started", NextAt: later},
		{DeliveryID: "soon", CallID: "c", Event: "call-started", NextAt: soon},
	} {
		if _, err := db.EnqueueOutbox(ctx, ev, 10); err != nil {
			t.Fatal(err)
		}
	}
	next, ok, err := db.NextOutboxAt(ctx, now)
	if err != nil || !ok || !next.Equal(soon) {
		t.Fatalf("next = %v %v %v, want %v", next, ok, err, soon)
	}
	if next, ok, err = db.NextOutboxAt(ctx, soon); err != nil || !ok || !next.Equal(later) {
		t.Fatalf("after the first: next = %v %v %v, want %v", next, ok, err, later)
	}
	if _, ok, err = db.NextOutboxAt(ctx, later); err != nil || ok {
		t.Fatalf("after the last: ok %v, %v", ok, err)
	}
}
