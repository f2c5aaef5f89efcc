package store

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestHistoryByCalls: the entries of the calls named, with their tags,
// found through the unique index on call_id (no scan of the history);
// calls without an entry are left out.
func TestHistoryByCalls(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	start := time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC)
	for i, id := range []string{"call-a", "call-b", "call-c"} {
		h := HistoryEntry{CallID: id, Number: "+49" + id, Outcome: "answered", StartedAt: start.Add(time.Duration(i) * time.Minute),
			EndedAt: start.Add(time.Duration(i)*time.Minute + time.Second)}
		if err := db.StartHistory(ctx, HistoryEntry{CallID: id, StartedAt: h.StartedAt}); err != nil {
			t.Fatal(err)
		}
		if err := db.FinishHistory(ctx, h); err != nil {
			t.Fatal(err)
		}
	}
	b, err := db.HistoryByCall(ctx, "call-b")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SetHistoryTags(ctx, b.ID, []string{"support", "sales"}); err != nil {
		t.Fatal(err)
	}
	got, err := db.HistoryByCalls(ctx, []string{"call-c", "no-such-call", "call-b"})
	if err != nil {
		t.Fatal(err)
	}
	byCall := map[string]HistoryEntry{}
	for _, e := range got {
		byCall[e.CallID] = e
	}
	if len(got) != 2 || byCall["call-c"].Number != "+49call-c" || !slices.Equal(byCall["call-b"].Tags, []string{"sales", "support"}) {
		t.Fatalf("entries %+v", got)
	}
	if got, err := db.HistoryByCalls(ctx, nil); err != nil || len(got) != 0 {
		t.Fatalf("no calls: %v %v", got, err)
	}
	if p := queryPlan(t, db, "SELECT h.rowid FROM json_each(?) j JOIN history h ON h.call_id = j.value", `["call-a"]`); !strings.Contains(p, "(call_id=?)") || strings.Contains(p, "SCAN h") {
		t.Errorf("plan %q: want the history found by its call_id index", p)
	}
}
