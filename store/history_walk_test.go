package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// ordinaryWalk is the page walk the way of database/sql (what HistoryPage
// falls back to): what the walkers must give.
func ordinaryWalk(t *testing.T, db *DB, f HistoryFilter) []HistoryRef {
	t.Helper()
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	q := historyWalkFor(f)
	var args []any
	if walkBound(q) {
		args = append(args, limit)
	}
	rows, err := db.rd.QueryContext(context.Background(), q+" LIMIT "+fmt.Sprint(limit)+"", args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []HistoryRef
	for rows.Next() {
		var r HistoryRef
		if err := rows.Scan(&r.Row, &r.Rev); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestHistoryWalkersMatch: the walkers' pages (prepared statements on their
// own connections) are those of an ordinary query with a LIMIT, for every
// filter and page size, also after entries are added, changed and tagged
// between walks (each walk sees the database as it is then).
func TestHistoryWalkersMatch(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	fillHistory(t, db, 3000)
	check := func(when string) {
		t.Helper()
		for _, f := range []HistoryFilter{{}, {Missed: true}, {Declined: true}, {Missed: true, Declined: true}} {
			for _, limit := range []int{0, 1, 2, 37, 100, 1000, 5000} {
				f.Limit = limit
				got, err := db.HistoryPage(ctx, f, nil)
				if err != nil {
					t.Fatal(err)
				}
				want := ordinaryWalk(t, db, f)
				if len(want) == 0 || !slices.Equal(got, want) {
					t.Fatalf("%s, %+v: walkers gave %d refs, the ordinary query %d (first %v / %v)", when, f, len(got), len(want), head(got), head(want))
				}
			}
		}
		if db.walk.open() == 0 {
			t.Fatalf("%s: no walker connection open: the pages came the ordinary way", when)
		}
	}
	check("filled")
	if err := db.StartHistory(ctx, HistoryEntry{ID: "new", CallID: "cnew", StartedAt: t0.Add(10000 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if err := db.FinishHistory(ctx, HistoryEntry{CallID: "cnew", Outcome: "missed", EndedAt: t0.Add(10001 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	before := must1(t)(db.HistoryPage(ctx, HistoryFilter{Limit: 3}, nil))
	if err := db.SetHistoryNote(ctx, "h002999", "call back"); err != nil {
		t.Fatal(err)
	}
	after := must1(t)(db.HistoryPage(ctx, HistoryFilter{Limit: 3}, nil))
	if after[0] != before[0] || after[1].Row != before[1].Row || after[1].Rev == before[1].Rev {
		t.Fatalf("after a note on the second newest: %v, before %v", after, before)
	}
	check("after a new entry and a note")
}

func head(r []HistoryRef) []HistoryRef { return r[:min(3, len(r))] }

func must1(t *testing.T) func([]HistoryRef, error) []HistoryRef {
	return func(r []HistoryRef, err error) []HistoryRef {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
}

// TestHistoryWalksPlans: the walks without a LIMIT stop reading after the
// page, which is cheap only while SQLite walks a covering index in the
// page's order; a plan with a sort (a temp b-tree) or a table scan would
// read every entry for each page.
func TestHistoryWalksPlans(t *testing.T) {
	db := openTestDB(t)
	fillHistory(t, db, 2000)
	for i, q := range historyWalks[:3] {
		p := queryPlan(t, db, q)
		// The missed and the declined walks read their partial index
		// (0022), which holds only their entries.
		want := [...]string{"COVERING INDEX history_page ", "COVERING INDEX history_page_missed", "COVERING INDEX history_page_declined"}[i]
		if !strings.Contains(p+" ", want) || strings.Contains(p, "TEMP B-TREE") {
			t.Errorf("walk %d plan %q: want %s and no sort", i, p, want)
		}
	}
}

// TestHistoryWalkersLetGo: walkers unused for readIdle close their
// connections (swept as the timer would), and Close closes the rest,
// also one in use at the time.
func TestHistoryWalkersLetGo(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	fillHistory(t, db, 200)
	p := &db.walk
	// Two walks at once: two walkers.
	w1, err := p.take()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.HistoryPage(ctx, HistoryFilter{Limit: 5}, nil); err != nil {
		t.Fatal(err)
	}
	if n := p.open(); n != 2 {
		t.Fatalf("%d walkers open, want 2", n)
	}
	p.give(w1)
	p.mu.Lock()
	for _, w := range p.free {
		w.used = w.used.Add(-readIdle)
	}
	p.mu.Unlock()
	p.sweep()
	if n := p.open(); n != 0 {
		t.Fatalf("%d walkers open after a sweep of idle ones, want 0", n)
	}
	if _, err := db.HistoryPage(ctx, HistoryFilter{Limit: 5}, nil); err != nil {
		t.Fatal(err)
	}
	busy, err := p.take()
	if err != nil {
		t.Fatal(err)
	}
	if n := p.open(); n != 1 {
		t.Fatalf("%d walkers open, want the one taken", n)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	p.give(busy)
	if n := p.open(); n != 0 {
		t.Fatalf("%d walkers open after Close, want 0", n)
	}
}

// TestHistoryWalkersConcurrent: more walks at once than walkers, while
// calls are written: each page is whole and newest first (the fill and the
// new calls have rowids in the order of their start), and no more walker
// connections are open than walkersMax.
func TestHistoryWalkersConcurrent(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	fillHistory(t, db, 500)
	stop := make(chan struct{})
	wrote := make(chan error, 1)
	go func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				wrote <- nil
				return
			default:
			}
			id := fmt.Sprintf("w%04d", i)
			at := t0.Add(time.Duration(1000+i) * time.Hour)
			if err := db.StartHistory(ctx, HistoryEntry{ID: id, CallID: "c" + id, StartedAt: at}); err != nil {
				wrote <- err
				return
			}
			if err := db.FinishHistory(ctx, HistoryEntry{CallID: "c" + id, Outcome: "answered", EndedAt: at.Add(time.Minute)}); err != nil {
				wrote <- err
				return
			}
		}
	}()
	errs := make(chan error, 6)
	for g := range 6 {
		go func() {
			var refs []HistoryRef
			for i := range 150 {
				limit := 1 + (g*37+i*11)%120
				var err error
				if refs, err = db.HistoryPage(ctx, HistoryFilter{Limit: limit}, refs[:0]); err != nil {
					errs <- err
					return
				}
				if len(refs) != limit {
					errs <- fmt.Errorf("page of %d: %d refs", limit, len(refs))
					return
				}
				for j := 1; j < len(refs); j++ {
					if refs[j].Row >= refs[j-1].Row {
						errs <- fmt.Errorf("page of %d not newest first at %d: %v", limit, j, refs[j-1:j+1])
						return
					}
				}
				if n := db.walk.open(); n > walkersMax {
					errs <- fmt.Errorf("%d walker connections open", n)
					return
				}
			}
			errs <- nil
		}()
	}
	for range 6 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	close(stop)
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
}
