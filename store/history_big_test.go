package store

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// fillHistory writes n finished entries in one statement: entry i started
// at t0+i s, every 5th missed, every 7th declined, accounts acc-a and acc-b
// alternating.
func fillHistory(tb testing.TB, db *DB, n int) {
	tb.Helper()
	err := db.g.Exec(`WITH RECURSIVE seq(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i < ? - 1)
		INSERT INTO history (id, call_id, account_id, direction, number, name, outcome, declined, started_at)
		SELECT printf('h%06d', i), printf('c%06d', i), CASE i % 2 WHEN 0 THEN 'acc-a' ELSE 'acc-b' END, 'in',
			printf('+4930%06d', i), printf('Name %d', i), CASE i % 5 WHEN 0 THEN 'missed' ELSE 'answered' END,
			i % 7 = 0, ? + i * 1000000000 FROM seq`, n, ts(t0)).Error
	if err != nil {
		tb.Fatal(err)
	}
}

func TestListHistory100k(t *testing.T) {
	if testing.Short() {
		t.Skip("100k rows")
	}
	ctx := context.Background()
	db := openTestDB(t)
	n := bigHistory
	fillHistory(t, db, n)

	first, err := db.ListHistory(ctx, HistoryFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 100 || first[0].ID != fmt.Sprintf("h%06d", n-1) {
		t.Fatalf("first page: %d entries, first %s", len(first), first[0].ID)
	}
	// Paging covers a stretch without gaps or repeats, newest first.
	prev := n
	for off := 0; off < 1000; off += 100 {
		page, err := db.ListHistory(ctx, HistoryFilter{Limit: 100, Offset: off})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page {
			var i int
			fmt.Sscanf(e.ID, "h%d", &i)
			if i != prev-1 {
				t.Fatalf("offset %d: got %s after h%06d", off, e.ID, prev)
			}
			prev = i
		}
	}
	deep, _ := db.ListHistory(ctx, HistoryFilter{Limit: 10, Offset: n - 5})
	if len(deep) != 5 || deep[4].ID != "h000000" {
		t.Fatalf("last page = %d entries", len(deep))
	}

	for name, tc := range map[string]struct {
		f    HistoryFilter
		keep func(i int) bool
	}{
		"missed":          {HistoryFilter{Missed: true}, func(i int) bool { return i%5 == 0 }},
		"declined":        {HistoryFilter{Declined: true}, func(i int) bool { return i%7 == 0 }},
		"missed+declined": {HistoryFilter{Missed: true, Declined: true}, func(i int) bool { return i%5 == 0 || i%7 == 0 }},
		"account":         {HistoryFilter{AccountID: "acc-b"}, func(i int) bool { return i%2 == 1 }},
		"text":            {HistoryFilter{Text: "30099"}, func(i int) bool { return strings.Contains(fmt.Sprintf("+4930%06d", i), "30099") }},
		"limit":           {HistoryFilter{Limit: 250}, func(int) bool { return true }},
	} {
		got, err := db.ListHistory(ctx, tc.f)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		limit := tc.f.Limit
		if limit == 0 {
			limit = 100
		}
		for i := n - 1; i >= 0 && len(want) < limit; i-- {
			if tc.keep(i) {
				want = append(want, fmt.Sprintf("h%06d", i))
			}
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d entries, want %d", name, len(got), len(want))
		}
		for i := range got {
			if got[i].ID != want[i] {
				t.Fatalf("%s: entry %d is %s, want %s", name, i, got[i].ID, want[i])
			}
		}
	}
}

// TestListHistoryUsesIndex checks the query plans: no full sort of the
// table for any filter but text (which scans, newest first, until the page is full).
func TestListHistoryUsesIndex(t *testing.T) {
	db := openTestDB(t)
	fillHistory(t, db, 2000)
	if err := db.g.Exec("ANALYZE").Error; err != nil {
		t.Fatal(err)
	}
	for _, where := range []string{"", "WHERE outcome = 'missed'", "WHERE declined = 1", "WHERE account_id = 'acc-a'"} {
		all := queryPlan(t, db, "SELECT * FROM history "+where+" ORDER BY seq DESC, started_at DESC, id DESC LIMIT 100")
		if strings.Contains(all, "TEMP B-TREE") || !strings.Contains(all, "INDEX") {
			t.Errorf("%q: plan %q sorts or scans", where, all)
		}
	}
}

func BenchmarkListHistory(b *testing.B) {
	ctx := context.Background()
	db := openTestDB(b)
	fillHistory(b, db, 100_000)
	for _, bc := range []struct {
		name string
		f    HistoryFilter
	}{
		{"newest100", HistoryFilter{Limit: 100}},
		{"missed100", HistoryFilter{Limit: 100, Missed: true}},
		{"offset50000", HistoryFilter{Limit: 100, Offset: 50_000}},
		{"text", HistoryFilter{Limit: 100, Text: "Name 9999"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := db.ListHistory(ctx, bc.f); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
