package store

import (
	"context"
	"strconv"
	"testing"
	"time"
)

// BenchmarkHistoryCallWriteParts: each of a call's three history writes
// alone (start, answer, end), cpu-µs per write, on a file database in WAL
// mode; the other two writes of each call are made outside the timing.
func BenchmarkHistoryCallWriteParts(b *testing.B) {
	for _, part := range []string{HistoryStart, HistoryAnswer, HistoryFinish} {
		b.Run(part, func(b *testing.B) {
			ctx := context.Background()
			db := openTestDB(b)
			t0 := time.Now()
			var spent time.Duration
			for i := 0; i < b.N; i++ {
				ws := callWrites("bench-"+strconv.Itoa(i), t0)
				for _, w := range ws {
					timed := w.Kind == part
					var c0 time.Duration
					if timed {
						c0 = cpuTime()
					}
					if err := db.writeOne(ctx, w); err != nil {
						b.Fatal(err)
					}
					if timed {
						spent += cpuTime() - c0
					}
				}
			}
			b.ReportMetric(float64(spent.Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}
