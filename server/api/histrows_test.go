package api

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/softphone/softphone/store"
)

// A call that ends shows in GET /history on the next request, and a note and
// tags written beside the API (the phone's own pages write the store
// directly) show at once: entries are kept rendered only with the stamp
// they had, and every request reads the stamps from the database.
func TestHistoryAlwaysCurrent(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if n := len(historyOf(t, e, "")); n != 0 {
		t.Fatalf("%d entries", n)
	}
	callID, now := uuid.NewString(), time.Now()
	if err := e.db.StartHistory(ctx, store.HistoryEntry{CallID: callID, Direction: "in", Number: "+4930", StartedAt: now}); err != nil {
		t.Fatal(err)
	}
	if n := len(historyOf(t, e, "")); n != 0 {
		t.Fatalf("a call in progress is listed: %d entries", n)
	}
	if err := e.db.FinishHistory(ctx, store.HistoryEntry{CallID: callID, Outcome: "missed", EndedAt: now}); err != nil {
		t.Fatal(err)
	}
	h := historyOf(t, e, "")
	if len(h) != 1 || h[0]["outcome"] != "missed" || h[0]["note"] != "" {
		t.Fatalf("after the end: %v", h)
	}
	missed := historyOf(t, e, "?missed=true")
	if len(missed) != 1 {
		t.Fatalf("missed: %v", missed)
	}
	id := h[0]["id"].(string)
	if err := e.db.SetHistoryNote(ctx, id, "call back"); err != nil {
		t.Fatal(err)
	}
	if err := e.db.SetHistoryTags(ctx, id, []string{"support"}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"", "?missed=true", "?missed=true&declined=true"} {
		h = historyOf(t, e, q)
		if len(h) != 1 || h[0]["note"] != "call back" || len(h[0]["tags"].([]any)) != 1 {
			t.Fatalf("%q after note and tags: %v", q, h)
		}
	}
	if h := historyOf(t, e, "?declined=true"); len(h) != 0 {
		t.Fatalf("declined: %v", h)
	}
}

// The answer is the same bytes encoding/json gives for the entries the
// store lists, in the same order, for every page size.
func TestHistoryPageMatchesList(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	base := time.Now().Add(-time.Hour)
	for i := range 30 {
		c := uuid.NewString()
		at := base.Add(time.Duration(i/7) * time.Minute) // written in the order of their start, with ties
		if err := e.db.FinishHistory(ctx, store.HistoryEntry{CallID: c, Direction: "out", Number: "+49 30 <&>",
			Outcome: []string{"answered", "missed", "declined"}[i%3], Declined: i%3 == 2, StartedAt: at, EndedAt: at}); err != nil {
			t.Fatal(err)
		}
	}
	historyOf(t, e, "?limit=5") // some entries rendered, the rest not
	for _, limit := range []int{1, 5, 17, 30} {
		list, err := e.db.ListHistory(ctx, store.HistoryFilter{Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		out := make([]historyJSON, len(list))
		for i, h := range list {
			out[i] = toHistoryJSON(h)
		}
		want, _ := json.Marshal(out)
		r := e.get("/history?limit=" + strconv.Itoa(limit))
		if r.status != 200 || string(r.body) != string(want) {
			t.Fatalf("limit %d:\n got %s\nwant %s", limit, r.body, want)
		}
	}
}
