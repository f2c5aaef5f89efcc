package store

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// outage fills the outbox as a long receiver outage leaves it: n events,
// three per call; each call's oldest waits for its retry (next_at ahead,
// up to the backoff's 10 minutes), the others behind it were due long ago
// (fillOutbox: call i/3, so seq 1 and every third from 3 begin a call).
func outage(tb testing.TB, db *DB, n int, now time.Time) {
	tb.Helper()
	fillOutbox(tb, db, n)
	err := db.g.Exec(`UPDATE outbox SET created_at = ?, next_at = CASE WHEN seq % 3 = 0 OR seq = 1
		THEN ? + (seq * 7919 % 600) * 1000000000 ELSE ? END`, ts(now.Add(-time.Hour)), ts(now.Add(time.Second)), ts(now.Add(-time.Hour))).Error
	if err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkNextOutboxAtOutage: NextOutboxAt on an outbox an outage filled
// (10,000 events: the sender's capacity; 100,000). Without an index on
// next_at SQLite reads every event (at 24 Nov 2026: 0.8 ms of CPU at
// 10,000, 12 ms at 100,000); with one (CREATE INDEX ... (next_at)) 22-24 µs
// at either. The index is not kept: it costs one more WAL frame (4 KiB) in
// every enqueue and every delivered event's commit (4.1 -> 5.1 and
// 6.2 -> 7.2 frames), that is on every call, to save 0.8 ms per retry
// during an outage, where the dispatcher's DueOutbox costs 5.5 ms.
func BenchmarkNextOutboxAtOutage(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			ctx := context.Background()
			db := openTestDB(b)
			now := time.Now()
			outage(b, db, n, now)
			b.ResetTimer()
			cpu0 := cpuTime()
			for range b.N {
				if _, ok, err := db.NextOutboxAt(ctx, now); err != nil || !ok {
					b.Fatal(ok, err)
				}
			}
			b.StopTimer()
			reportCPU(b, cpu0, b.N)
		})
	}
}

// BenchmarkDueOutboxOutage: DueOutbox on the same outbox when nothing is
// due, as the sender asks it for each retry: it walks every event queued
// behind the calls' first ones (5.5 ms of CPU at 10,000, 70 ms at 100,000).
func BenchmarkDueOutboxOutage(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			ctx := context.Background()
			db := openTestDB(b)
			now := time.Now()
			outage(b, db, n, now)
			b.ResetTimer()
			cpu0 := cpuTime()
			for range b.N {
				if due, err := db.DueOutbox(ctx, now, 256); err != nil || len(due) != 0 {
					b.Fatal(len(due), err)
				}
			}
			b.StopTimer()
			reportCPU(b, cpu0, b.N)
		})
	}
}
