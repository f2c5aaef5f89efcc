package store

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestShiftOutbox: after the wall clock stepped back an hour, the times an
// event stored before the step holds ahead of now move back an hour (a
// retry never before now), while an event stored after the step keeps its
// own.
func TestShiftOutbox(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	now := time.Now().Round(0)
	before := OutboxEvent{CallID: "a", Event: "call-started", CreatedAt: now.Add(time.Hour - time.Minute), NextAt: now.Add(time.Hour + 5*time.Second), Attempts: 2}
	soon := OutboxEvent{CallID: "b", Event: "call-started", CreatedAt: now.Add(time.Hour - time.Minute), NextAt: now.Add(30 * time.Minute), Attempts: 1}
	after := OutboxEvent{CallID: "c", Event: "call-started", CreatedAt: now.Add(-time.Second), NextAt: now.Add(-time.Second)}
	for _, e := range []OutboxEvent{before, soon, after} {
		if ok, err := db.EnqueueOutbox(ctx, e, 100); !ok || err != nil {
			t.Fatal(ok, err)
		}
	}
	n, err := db.ShiftOutbox(ctx, now, -time.Hour)
	if err != nil || n != 2 {
		t.Fatalf("moved %d, %v; want 2", n, err)
	}
	due, err := db.DueOutbox(ctx, now.Add(time.Millisecond), 10)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]OutboxEvent{}
	for _, e := range due {
		got[e.CallID] = e
	}
	if len(due) != 2 || !got["b"].NextAt.Equal(now) || !got["c"].NextAt.Equal(after.NextAt) {
		t.Fatalf("due after the shift: %+v", due)
	}
	if !got["b"].CreatedAt.Equal(now.Add(-time.Minute)) || !got["c"].CreatedAt.Equal(after.CreatedAt) {
		t.Errorf("creation times: b %v (want %v), c %v", got["b"].CreatedAt, now.Add(-time.Minute), got["c"].CreatedAt)
	}
	next, ok, err := db.NextOutboxAt(ctx, now)
	if err != nil || !ok || !next.Equal(now.Add(5*time.Second)) {
		t.Errorf("a's retry: %v %v %v; want %v", next, ok, err, now.Add(5*time.Second))
	}
}

// TestDeliveryLogAfterClockStepBack: the delivery log is full (1000 lines)
// of lines written before the wall clock stepped back an hour (their times
// an hour ahead of now). Events delivered after the step are the newest
// lines: listed first and kept by the trimming. Before, ordered and
// trimmed by time, each new line was removed as soon as it was written
// and the log went on showing the old ones.
func TestDeliveryLogAfterClockStepBack(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	ahead := time.Now().Add(time.Hour).UnixNano()
	err := db.g.Exec(`WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ?)
		INSERT INTO deliveries (delivery_id, call_id, event, status, attempts, delivered, at, fields)
		SELECT printf('old%d', i), 'c', 'call-started', 200, 1, 1, ? + i, '{}' FROM seq`, deliveryLogSize, ahead).Error
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		enqueue(t, db, fmt.Sprint("new", i), "call-started", 10)
		due, err := db.DueOutbox(ctx, time.Now().Add(time.Second), 1)
		if err != nil || len(due) != 1 {
			t.Fatal(due, err)
		}
		if err := db.OutboxDone(ctx, due[0].Seq, 200, true, ""); err != nil {
			t.Fatal(err)
		}
	}
	log, err := db.Deliveries(ctx, 5)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range log {
		if want := fmt.Sprint("new", 4-i); d.CallID != want {
			t.Errorf("line %d is of call %s, want %s", i, d.CallID, want)
		}
	}
	all, _ := db.Deliveries(ctx, deliveryLogSize)
	if len(all) != deliveryLogSize {
		t.Errorf("the log holds %d lines, want %d", len(all), deliveryLogSize)
	}
}
