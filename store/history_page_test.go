package store

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestHistoryPageStamps: the page walk lists closed entries newest first;
// every kind of change to an entry (its end, a note, its tags) gives it a new
// stamp, and HistoryRows reads it with its tags in code order.
func TestHistoryPageStamps(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	for i, id := range []string{"h1", "h2", "h3"} {
		at := t0.Add(time.Duration(i) * time.Minute)
		if err := db.StartHistory(ctx, HistoryEntry{ID: id, CallID: "c" + id, StartedAt: at}); err != nil {
			t.Fatal(err)
		}
	}
	page := func(f HistoryFilter) []HistoryRef {
		t.Helper()
		refs, err := db.HistoryPage(ctx, f, nil)
		if err != nil {
			t.Fatal(err)
		}
		return refs
	}
	if refs := page(HistoryFilter{}); len(refs) != 0 {
		t.Fatalf("open entries on the page: %v", refs)
	}
	for _, id := range []string{"h1", "h2", "h3"} {
		e := HistoryEntry{CallID: "c" + id, Outcome: "answered", EndedAt: t0.Add(time.Hour)}
		if id == "h2" {
			e.Outcome = "missed"
		}
		if err := db.FinishHistory(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	refs := page(HistoryFilter{Limit: 2})
	rows, err := db.HistoryRows(ctx, []int64{refs[0].Row, refs[1].Row})
	if err != nil || len(rows) != 2 {
		t.Fatalf("rows = %v, %v", rows, err)
	}
	slices.SortFunc(rows, func(a, b HistoryRow) int { return strings.Compare(b.Entry.ID, a.Entry.ID) })
	if rows[0].Entry.ID != "h3" || rows[1].Entry.ID != "h2" || rows[0].HistoryRef != refs[0] {
		t.Fatalf("page %v, rows %+v: want h3, h2 newest first", refs, rows)
	}
	if m := page(HistoryFilter{Missed: true}); len(m) != 1 || m[0] != refs[1] {
		t.Fatalf("missed page = %v, want only h2 %v", m, refs[1])
	}
	stamp := func() int64 { return page(HistoryFilter{Limit: 1})[0].Rev }
	before := stamp()
	if err := db.SetHistoryNote(ctx, "h3", "call back"); err != nil {
		t.Fatal(err)
	}
	afterNote := stamp()
	if afterNote == before {
		t.Fatal("a note left the stamp as it was")
	}
	if err := db.SetHistoryTags(ctx, "h3", []string{"support", "callback"}); err != nil {
		t.Fatal(err)
	}
	afterTags := stamp()
	if afterTags == afterNote {
		t.Fatal("tags left the stamp as it was")
	}
	rows, err = db.HistoryRows(ctx, []int64{refs[0].Row})
	if err != nil || len(rows) != 1 {
		t.Fatal(rows, err)
	}
	if r := rows[0]; r.Rev != afterTags || r.Entry.Note != "call back" || !slices.Equal(r.Entry.Tags, []string{"callback", "support"}) {
		t.Fatalf("row = %+v", r)
	}
	if err := db.SetHistoryTags(ctx, "h3", nil); err != nil {
		t.Fatal(err)
	}
	if stamp() == afterTags {
		t.Fatal("removing tags left the stamp as it was")
	}
	if rows, _ := db.HistoryRows(ctx, []int64{refs[0].Row, 999999}); len(rows) != 1 || len(rows[0].Entry.Tags) != 0 || rows[0].Entry.Tags == nil {
		t.Fatalf("rows = %+v: want h3 alone with an empty tag list", rows)
	}
}

// TestHistoryPageIndexOnly checks that every page walk reads only an index
// (no table rows, no sort of the table).
func TestHistoryPageIndexOnly(t *testing.T) {
	db := openTestDB(t)
	fillHistory(t, db, 2000)
	if err := db.g.Exec("ANALYZE").Error; err != nil {
		t.Fatal(err)
	}
	for _, where := range []string{"open = 0", "outcome = 'missed' AND open = 0", "declined = 1 AND open = 0"} {
		all := queryPlan(t, db, "SELECT rowid, rev FROM history WHERE "+where+" ORDER BY seq DESC, started_at DESC, id DESC LIMIT 100")
		if strings.Contains(all, "TEMP B-TREE") || !strings.Contains(all, "COVERING INDEX history_page") {
			t.Errorf("%q: plan %q is not an index-only walk", where, all)
		}
	}
}
