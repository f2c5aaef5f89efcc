package store

import (
	"context"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the CPU time used by the process so far: per operation it is a
// figure that depends less on what else the machine is doing than ns/op.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds the cpu-µs/op metric from a cpuTime taken at the start.
func reportCPU(b *testing.B, cpu0 time.Duration, n int) {
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(n), "cpu-µs/op")
}

// fillOutbox writes n events (seq 1..n, three per call) in one statement.
func fillOutbox(tb testing.TB, db *DB, n int) {
	tb.Helper()
	err := db.g.Exec(`WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ?)
		INSERT INTO outbox (delivery_id, call_id, event, fields) SELECT printf('d%d', i), printf('c%d', i / 3),
			'call-started', '{"id":"x","event":"call-started"}' FROM seq`, n).Error
	if err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkOutboxDone: one delivered event leaves the outbox for a full
// delivery log (1000 lines, so every call also prunes one), as the webhook
// sender does after each answer.
func BenchmarkOutboxDone(b *testing.B) {
	ctx := context.Background()
	db := openTestDB(b)
	err := db.g.Exec(`WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ?)
		INSERT INTO deliveries (delivery_id, call_id, event, status, attempts, delivered, at, fields)
		SELECT printf('old%d', i), 'c', 'call-started', 200, 1, 1, i, '{}' FROM seq`, db.deliveryLog).Error
	if err != nil {
		b.Fatal(err)
	}
	fillOutbox(b, db, b.N)
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := range b.N {
		if err := db.OutboxDone(ctx, int64(i+1), 200, true, ""); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	reportCPU(b, cpu0, b.N)
}

// BenchmarkEnqueueOutboxBatch: events written 64 at a time, as the webhook
// reader does under load; compare cpu-µs/op with BenchmarkEnqueueOutbox.
func BenchmarkEnqueueOutboxBatch(b *testing.B) {
	ctx := context.Background()
	db := openTestDB(b)
	fields := map[string]string{"id": "c", "event": "call-state-changed", "state": "active", "number": "+4930123456",
		"name": "Someone", "direction": "in", "callstart_ts": "1763769600", "callstate_ts": "1763769601"}
	batch := make([]OutboxEvent, 64)
	for i := range batch {
		batch[i] = OutboxEvent{CallID: "c", Event: "call-state-changed", Fields: fields}
	}
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i += len(batch) {
		if _, err := db.EnqueueOutboxBatch(ctx, batch[:min(len(batch), b.N-i)], 1<<30); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	reportCPU(b, cpu0, b.N)
}
