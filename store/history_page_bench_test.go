package store

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkHistoryPage: one page of 100 over 100,000 calls, every 10th
// with two tags, as GET /history?limit=100 reads it; cpu-µs/op is the
// process's CPU time per page.
func BenchmarkHistoryPage(b *testing.B) {
	ctx := context.Background()
	db := openTestDB(b)
	fillHistory(b, db, 100_000)
	err := db.g.Exec(`INSERT INTO history_tags (history_id, code)
		SELECT id, c.code FROM history, (SELECT code FROM taxonomy ORDER BY code LIMIT 2) c
		WHERE CAST(substr(id, 2) AS INTEGER) % 10 = 0`).Error
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		f    HistoryFilter
	}{
		{"newest100", HistoryFilter{Limit: 100}},
		{"account100", HistoryFilter{Limit: 100, AccountID: "acc-a"}},
		{"text", HistoryFilter{Limit: 100, Text: "Name 9999"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			page, err := db.ListHistory(ctx, bc.f)
			if err != nil || len(page) == 0 {
				b.Fatal(len(page), err)
			}
			tagged := 0
			for _, e := range page {
				tagged += len(e.Tags)
			}
			if bc.name == "newest100" && tagged != 20 {
				b.Fatal(fmt.Sprint("tags on the page: ", tagged))
			}
			b.ResetTimer()
			cpu0 := cpuTime()
			for range b.N {
				if _, err := db.ListHistory(ctx, bc.f); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			reportCPU(b, cpu0, b.N)
		})
	}
}

// BenchmarkHistoryPageWalk: the page walk of GET /history?limit=100 alone
// (HistoryPage over 100,000 calls), as the API runs it for every request.
func BenchmarkHistoryPageWalk(b *testing.B) {
	ctx := context.Background()
	db := openTestDB(b)
	fillHistory(b, db, 100_000)
	refs, err := db.HistoryPage(ctx, HistoryFilter{Limit: 100}, nil)
	if err != nil || len(refs) != 100 {
		b.Fatal(len(refs), err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for range b.N {
		if refs, err = db.HistoryPage(ctx, HistoryFilter{Limit: 100}, refs[:0]); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	reportCPU(b, cpu0, b.N)
}
