package store

import (
	"context"
	"strconv"
	"testing"
	"time"
)

// BenchmarkHistoryCallWrites: the three history writes of one call (start,
// answer, end) as the phone makes them, on a file database in WAL mode, each
// alone, and the search index brought up to date every 100 calls (what the
// phone's tick of 2 s finds at 50 calls a second); cpu-µs/op is the
// process's CPU (the wall time on a shared machine is mostly waiting).
func BenchmarkHistoryCallWrites(b *testing.B) {
	ctx := context.Background()
	db := openTestDB(b)
	t0 := time.Now()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		id := "bench-" + strconv.Itoa(i)
		e := HistoryEntry{CallID: id, AccountID: "acc", Account: "alice", Direction: "in",
			Number: "+4930" + strconv.Itoa(1000000+i), URI: "sip:" + strconv.Itoa(i) + "@pbx", StartedAt: t0}
		if err := db.StartHistory(ctx, e); err != nil {
			b.Fatal(err)
		}
		if err := db.AnswerHistory(ctx, id, t0.Add(time.Millisecond), "no"); err != nil {
			b.Fatal(err)
		}
		e.Outcome, e.Answered, e.AnsweredAt, e.AnsweredBy, e.EndedAt, e.DurationS = "answered", true, t0.Add(time.Millisecond), "no", t0.Add(time.Second), 1
		if err := db.FinishHistory(ctx, e); err != nil {
			b.Fatal(err)
		}
		if i%100 == 99 {
			if _, err := db.IndexHistorySearch(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
	reportCPU(b, cpu0, b.N)
}

// BenchmarkHistoryCallWritesGrouped: the same three writes handed over
// together (WriteHistory: one transaction), per call; and calls' writes
// grouped by ten, as a burst queues them, per call.
func BenchmarkHistoryCallWritesGrouped(b *testing.B) {
	for _, per := range []int{1, 4, 10, 30, 100} {
		b.Run("calls="+strconv.Itoa(per), func(b *testing.B) {
			ctx := context.Background()
			db := openTestDB(b)
			t0 := time.Now()
			ws := make([]HistoryWrite, 0, 3*per)
			b.ResetTimer()
			cpu0 := cpuTime()
			for i := 0; i < b.N; i += per {
				ws = ws[:0]
				for k := i; k < i+per; k++ {
					ws = append(ws, callWrites("bench-"+strconv.Itoa(k), t0)...)
				}
				if errs := db.WriteHistory(ctx, ws); errs != nil {
					b.Fatal(errs)
				}
			}
			reportCPU(b, cpu0, b.N)
		})
	}
}
