package store

import (
	"context"
	"strconv"
	"testing"
	"time"
)

// BenchmarkHistoryCallWrites: the three history writes of one call (start,
// answer, end) as the phone makes them, on a file database in WAL mode.
func BenchmarkHistoryCallWrites(b *testing.B) {
	ctx := context.Background()
	db := openTestDB(b)
	t0 := time.Now()
	b.ResetTimer()
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
	}
}
