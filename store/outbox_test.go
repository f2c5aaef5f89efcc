package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"
)

func enqueue(t *testing.T, db *DB, call, event string, capacity int) bool {
	t.Helper()
	ok, err := db.EnqueueOutbox(context.Background(), OutboxEvent{CallID: call, Event: event,
		Fields: map[string]string{"id": call, "event": event}}, capacity)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

func dueKeys(t *testing.T, db *DB, now time.Time) []string {
	t.Helper()
	due, err := db.DueOutbox(context.Background(), now, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range due {
		out = append(out, e.CallID+"/"+e.Event)
	}
	return out
}

func TestOutboxOrderPerCall(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	enqueue(t, db, "a", "call-started", 10)
	enqueue(t, db, "b", "call-started", 10)
	enqueue(t, db, "a", "call-state-changed", 10)
	enqueue(t, db, "a", "call-ended", 10)
	enqueue(t, db, "b", "call-ended", 10)
	now := time.Now().Add(time.Second)

	if got, want := dueKeys(t, db, now), []string{"a/call-started", "b/call-started"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("due = %v, want %v", got, want)
	}
	due, _ := db.DueOutbox(ctx, now, 0)
	a1, b1 := due[0], due[1]
	if a1.DeliveryID == "" || a1.Fields["event"] != "call-started" || a1.CreatedAt.IsZero() || a1.Seq >= b1.Seq {
		t.Fatalf("event = %+v", a1)
	}

	// a's first event fails and waits a minute: a's later events wait behind it.
	if err := db.OutboxAttempt(ctx, a1.Seq, 503, "service unavailable", now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if got, want := dueKeys(t, db, now), []string{"b/call-started"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("due while a is retrying = %v, want %v", got, want)
	}
	if err := db.OutboxDone(ctx, b1.Seq, 200, true, ""); err != nil {
		t.Fatal(err)
	}
	if got, want := dueKeys(t, db, now), []string{"b/call-ended"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("due = %v, want %v", got, want)
	}
	later := now.Add(2 * time.Minute)
	if got, want := dueKeys(t, db, later), []string{"a/call-started", "b/call-ended"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("due after the retry time = %v, want %v", got, want)
	}
	due, _ = db.DueOutbox(ctx, later, 1)
	if len(due) != 1 || due[0].Attempts != 1 || due[0].LastStatus != 503 || due[0].LastError != "service unavailable" {
		t.Fatalf("retried event = %+v", due)
	}
	if err := db.OutboxDone(ctx, a1.Seq, 500, false, "gave up"); err != nil {
		t.Fatal(err)
	}
	if n, _ := db.OutboxLen(ctx); n != 3 {
		t.Fatalf("OutboxLen = %d, want 3", n)
	}

	log, err := db.Deliveries(ctx, 0)
	if err != nil || len(log) != 2 {
		t.Fatalf("Deliveries = %+v, %v", log, err)
	}
	if log[0].DeliveryID != a1.DeliveryID || log[0].Delivered || log[0].Status != 500 || log[0].Attempts != 2 ||
		log[0].LastError != "gave up" || log[0].Fields["id"] != "a" {
		t.Fatalf("newest delivery = %+v", log[0])
	}
	if log[1].DeliveryID != b1.DeliveryID || !log[1].Delivered || log[1].Attempts != 1 {
		t.Fatalf("older delivery = %+v", log[1])
	}
	d, err := db.GetDelivery(ctx, b1.DeliveryID)
	if err != nil || d.Status != 200 || d.Event != "call-started" {
		t.Fatalf("GetDelivery = %+v, %v", d, err)
	}
	if _, err := db.GetDelivery(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("GetDelivery(unknown): %v", err)
	}
	if err := db.OutboxDone(ctx, a1.Seq, 200, true, ""); !errors.Is(err, ErrNotFound) {
		t.Fatalf("done twice: %v", err)
	}
	if err := db.OutboxAttempt(ctx, a1.Seq, 200, "", now); !errors.Is(err, ErrNotFound) {
		t.Fatalf("attempt of a done event: %v", err)
	}
}

func TestOutboxCapacity(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	for i := range 3 {
		if !enqueue(t, db, fmt.Sprint("c", i), "call-started", 3) {
			t.Fatalf("event %d dropped below capacity", i)
		}
	}
	if enqueue(t, db, "c9", "call-started", 3) {
		t.Fatal("event accepted beyond capacity")
	}
	if n, _ := db.OutboxLen(ctx); n != 3 {
		t.Fatalf("OutboxLen = %d", n)
	}
	due, _ := db.DueOutbox(ctx, time.Now().Add(time.Second), 0)
	if err := db.OutboxDone(ctx, due[0].Seq, 200, true, ""); err != nil {
		t.Fatal(err)
	}
	if !enqueue(t, db, "c9", "call-started", 3) {
		t.Fatal("event dropped after room was made")
	}
}

// TestOutboxBatch: a batch keeps its order (also across the statements a
// long batch is cut into), and where the outbox fills up the first events
// are stored and the rest are not.
func TestOutboxBatch(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	var batch []OutboxEvent
	for i := range 150 {
		batch = append(batch, OutboxEvent{CallID: "c", Event: fmt.Sprint("e", i), Fields: map[string]string{"i": fmt.Sprint(i)}})
	}
	n, err := db.EnqueueOutboxBatch(ctx, batch, 200)
	if err != nil || n != 150 {
		t.Fatalf("stored %d, %v", n, err)
	}
	n, err = db.EnqueueOutboxBatch(ctx, batch[:80], 200)
	if err != nil || n != 50 {
		t.Fatalf("stored %d of 80 with room for 50: %v", n, err)
	}
	if n, _ := db.OutboxLen(ctx); n != 200 {
		t.Fatalf("OutboxLen = %d", n)
	}
	for i := range 200 {
		due, err := db.DueOutbox(ctx, time.Now().Add(time.Second), 0)
		if err != nil || len(due) != 1 {
			t.Fatalf("due %v %v", due, err)
		}
		if want := fmt.Sprint("e", i%150); due[0].Event != want || due[0].Fields["i"] != fmt.Sprint(i%150) {
			t.Fatalf("event %d is %s %v, want %s", i, due[0].Event, due[0].Fields, want)
		}
		if err := db.OutboxDone(ctx, due[0].Seq, 200, true, ""); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := db.EnqueueOutboxBatch(ctx, nil, 200); n != 0 || err != nil {
		t.Fatal(n, err)
	}
}

// TestOutboxCapacityConcurrent: many writers never push the outbox past its capacity.
func TestOutboxCapacityConcurrent(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	const capacity, writers, each = 25, 8, 10
	var wg sync.WaitGroup
	var mu sync.Mutex
	accepted := 0
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				ok, err := db.EnqueueOutbox(ctx, OutboxEvent{CallID: fmt.Sprint(w, "-", i), Event: "call-started"}, capacity)
				if err != nil {
					t.Error(err)
					return
				}
				if ok {
					mu.Lock()
					accepted++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	n, _ := db.OutboxLen(ctx)
	if n != capacity || accepted != capacity {
		t.Fatalf("outbox holds %d, %d accepted; want %d", n, accepted, capacity)
	}
}

func TestOutboxNotDueYet(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	at := time.Now().Add(time.Hour)
	if _, err := db.EnqueueOutbox(ctx, OutboxEvent{CallID: "x", Event: "call-started", NextAt: at}, 10); err != nil {
		t.Fatal(err)
	}
	if got := dueKeys(t, db, time.Now()); len(got) != 0 {
		t.Fatalf("due = %v before NextAt", got)
	}
	if got := dueKeys(t, db, at); len(got) != 1 {
		t.Fatalf("due at NextAt = %v", got)
	}
}

func TestDeliveryLogBounded(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	db.deliveryLog = 20
	for i := range db.deliveryLog + 5 {
		enqueue(t, db, fmt.Sprint("c", i), "call-started", 10)
		due, err := db.DueOutbox(ctx, time.Now().Add(time.Second), 1)
		if err != nil || len(due) != 1 {
			t.Fatal(due, err)
		}
		if err := db.OutboxDone(ctx, due[0].Seq, 200, true, ""); err != nil {
			t.Fatal(err)
		}
	}
	var n int64
	db.g.Model(&deliveryRow{}).Count(&n)
	if n != int64(db.deliveryLog) {
		t.Fatalf("delivery log holds %d lines, want %d", n, db.deliveryLog)
	}
	log, _ := db.Deliveries(ctx, 1)
	if log[0].CallID != fmt.Sprint("c", db.deliveryLog+4) {
		t.Fatalf("newest delivery = %+v", log[0])
	}
}

func BenchmarkEnqueueOutbox(b *testing.B) {
	ctx := context.Background()
	db := openTestDB(b)
	e := OutboxEvent{CallID: "c", Event: "call-state-changed", Fields: map[string]string{"id": "c", "state": "active"}}
	for b.Loop() {
		if _, err := db.EnqueueOutbox(ctx, e, 1<<30); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEnqueueOutboxFull measures the drop path with a full outbox of
// 10,000 events (the sender's default capacity): the capacity check is what it costs.
func BenchmarkEnqueueOutboxFull(b *testing.B) {
	ctx := context.Background()
	db := openTestDB(b)
	const capacity = 10_000
	err := db.g.Exec(`WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ?)
		INSERT INTO outbox (delivery_id, call_id, event) SELECT printf('d%d', i), printf('c%d', i / 3), 'call-started' FROM seq`,
		capacity).Error
	if err != nil {
		b.Fatal(err)
	}
	e := OutboxEvent{CallID: "c", Event: "call-state-changed", Fields: map[string]string{"id": "c"}}
	for b.Loop() {
		ok, err := db.EnqueueOutbox(ctx, e, capacity)
		if err != nil || ok {
			b.Fatal(ok, err)
		}
	}
}

// BenchmarkDueOutbox: a backlog of 10,000 events of 3,334 calls.
func BenchmarkDueOutbox(b *testing.B) {
	ctx := context.Background()
	db := openTestDB(b)
	err := db.g.Exec(`WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < 10000)
		INSERT INTO outbox (delivery_id, call_id, event) SELECT printf('d%d', i), printf('c%d', i / 3), 'call-started' FROM seq`).Error
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	b.Run("heads-due", func(b *testing.B) {
		for b.Loop() {
			if due, err := db.DueOutbox(ctx, now, 16); err != nil || len(due) != 16 {
				b.Fatal(len(due), err)
			}
		}
	})
	// Every call's head waits for a retry: the whole backlog is walked.
	if err := db.g.Exec("UPDATE outbox SET next_at = ?", ts(now.Add(time.Hour))).Error; err != nil {
		b.Fatal(err)
	}
	b.Run("none-due", func(b *testing.B) {
		for b.Loop() {
			if due, err := db.DueOutbox(ctx, now, 16); err != nil || len(due) != 0 {
				b.Fatal(len(due), err)
			}
		}
	})
}
