package store

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestOutboxDoneResend: a resent event (same DeliveryID) replaces its line
// of the delivery log instead of adding one.
func TestOutboxDoneResend(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	ev := OutboxEvent{DeliveryID: "d1", CallID: "a", Event: "call-started", Fields: map[string]string{"id": "a"}}
	done := func(status int, ok bool, errText string) {
		t.Helper()
		if _, err := db.EnqueueOutbox(ctx, ev, 10); err != nil {
			t.Fatal(err)
		}
		due, err := db.DueOutbox(ctx, time.Now().Add(time.Second), 0)
		if err != nil || len(due) != 1 {
			t.Fatal(due, err)
		}
		if err := db.OutboxDone(ctx, due[0].Seq, status, ok, errText); err != nil {
			t.Fatal(err)
		}
	}
	done(500, false, "gave up")
	first, err := db.GetDelivery(ctx, "d1")
	if err != nil {
		t.Fatal(err)
	}
	ev.Fields = map[string]string{"id": "a", "resent": "yes"}
	done(200, true, "")
	log, err := db.Deliveries(ctx, 0)
	if err != nil || len(log) != 1 {
		t.Fatalf("Deliveries = %+v, %v", log, err)
	}
	d := log[0]
	if d.DeliveryID != "d1" || !d.Delivered || d.Status != 200 || d.LastError != "" || d.Attempts != 1 ||
		d.Fields["resent"] != "yes" || d.At.Before(first.At) {
		t.Fatalf("resent delivery = %+v (first %+v)", d, first)
	}
	if n, _ := db.OutboxLen(ctx); n != 0 {
		t.Fatalf("OutboxLen = %d", n)
	}
}

// TestDeliveryLogTrimsLongerLog: a log longer than the bound (a bound lowered
// since) is trimmed to the newest lines.
func TestDeliveryLogTrimsLongerLog(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	err := db.g.Exec(`WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < 50)
		INSERT INTO deliveries (delivery_id, call_id, event, at, fields)
		SELECT printf('old%d', i), 'c', 'call-started', i, '{}' FROM seq`).Error
	if err != nil {
		t.Fatal(err)
	}
	db.deliveryLog = 10
	for i := range 100 {
		enqueue(t, db, fmt.Sprint("c", i), "call-started", 10)
		due, err := db.DueOutbox(ctx, time.Now().Add(time.Second), 1)
		if err != nil || len(due) != 1 {
			t.Fatal(due, err)
		}
		if err := db.OutboxDone(ctx, due[0].Seq, 200, true, ""); err != nil {
			t.Fatal(err)
		}
	}
	log, err := db.Deliveries(ctx, 1000)
	if err != nil || len(log) != 10 {
		t.Fatalf("log holds %d lines (%v), want 10", len(log), err)
	}
	for i, d := range log {
		if want := fmt.Sprint("c", 99-i); d.CallID != want {
			t.Fatalf("line %d is of call %s, want %s", i, d.CallID, want)
		}
	}
}

// TestOutboxCapacityAfterDone: the outbox count follows enqueues and
// deliveries.
func TestOutboxCapacityAfterDone(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	for i := range 5 {
		if !enqueue(t, db, fmt.Sprint("c", i), "call-started", 5) {
			t.Fatalf("event %d dropped", i)
		}
	}
	due, _ := db.DueOutbox(ctx, time.Now().Add(time.Second), 0)
	for _, e := range due[:3] {
		if err := db.OutboxDone(ctx, e.Seq, 200, true, ""); err != nil {
			t.Fatal(err)
		}
	}
	// Unknown seq: nothing changes.
	if err := db.OutboxDone(ctx, 999, 200, true, ""); err == nil {
		t.Fatal("done of an unknown event")
	}
	for i := range 3 {
		if !enqueue(t, db, fmt.Sprint("d", i), "call-started", 5) {
			t.Fatalf("event d%d dropped with room", i)
		}
	}
	if enqueue(t, db, "x", "call-started", 5) {
		t.Fatal("event accepted beyond capacity")
	}
	if n, _ := db.OutboxLen(ctx); n != 5 {
		t.Fatalf("OutboxLen = %d", n)
	}
	// Gaps in Seq (an early event still waiting) do not make it look full.
	due, _ = db.DueOutbox(ctx, time.Now().Add(time.Second), 0)
	for _, e := range due[1:] {
		if err := db.OutboxDone(ctx, e.Seq, 200, true, ""); err != nil {
			t.Fatal(err)
		}
	}
	if !enqueue(t, db, "y", "call-started", 2) {
		t.Fatal("event dropped with room")
	}
}

// TestDeliveryLogSlack: a bound of 300 lines lets the table hold up to 3 more
// between trims, never more, and Deliveries lists only the newest 300.
func TestDeliveryLogSlack(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	db.deliveryLog = 300
	most := 0
	for i := range 320 {
		enqueue(t, db, fmt.Sprint("c", i), "call-started", 10)
		due, err := db.DueOutbox(ctx, time.Now().Add(time.Second), 1)
		if err != nil || len(due) != 1 {
			t.Fatal(due, err)
		}
		if err := db.OutboxDone(ctx, due[0].Seq, 200, true, ""); err != nil {
			t.Fatal(err)
		}
		var n int64
		db.g.Model(&deliveryRow{}).Count(&n)
		most = max(most, int(n))
	}
	if most != 303 {
		t.Fatalf("the log held at most %d lines, want 303", most)
	}
	log, err := db.Deliveries(ctx, 1000)
	if err != nil || len(log) != 300 || log[0].CallID != "c319" || log[299].CallID != "c20" {
		t.Fatalf("Deliveries: %d lines, %v", len(log), err)
	}
}
