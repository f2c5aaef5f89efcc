package store

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"
)

// TestListHistoryMatchesGet: every field and the tags (in code order) of a
// listed entry are what GetHistory (through gorm) reads for it.
func TestListHistoryMatchesGet(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	for i := range 6 {
		e := HistoryEntry{ID: fmt.Sprint("h", i), CallID: fmt.Sprint("c", i), SeanceID: "s", AccountID: "acc",
			Account: "alice@pbx", Direction: "in", Number: fmt.Sprint("+4930", i), URI: "sip:x@pbx", Name: "Näme",
			Dialed: "0", StartedAt: t0.Add(time.Duration(i) * time.Second)}
		if i%3 == 0 {
			e.Tags = []string{"support", "callback"}
		}
		if err := db.StartHistory(ctx, e); err != nil {
			t.Fatal(err)
		}
		if i == 5 {
			continue // stays open
		}
		e.Outcome, e.Answered, e.DurationS, e.Reason, e.AnsweredBy = "answered", true, 12.5, "remote-hangup", "me"
		e.AnsweredAt, e.EndedAt, e.Declined, e.Jitter, e.Loss = t0.Add(time.Minute), t0.Add(2*time.Minute), i == 4, 3.25, 0.5
		e.Recording = "r"
		if err := db.FinishHistory(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.SetHistoryNote(ctx, "h1", `a "note", with, commas`); err != nil {
		t.Fatal(err)
	}
	list, err := db.ListHistory(ctx, HistoryFilter{})
	if err != nil || len(list) != 6 {
		t.Fatalf("ListHistory = %d entries, %v", len(list), err)
	}
	for i, e := range list {
		if want := fmt.Sprint("h", 5-i); e.ID != want {
			t.Fatalf("entry %d is %s, want %s", i, e.ID, want)
		}
		got, err := db.GetHistory(ctx, e.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(e, got) {
			t.Fatalf("listed %+v\n    get %+v", e, got)
		}
	}
	if tags := list[5].Tags; !reflect.DeepEqual(tags, []string{"callback", "support"}) {
		t.Fatalf("tags = %v", tags)
	}
	if none, err := db.ListHistory(ctx, HistoryFilter{Offset: 10}); err != nil || none == nil || len(none) != 0 {
		t.Fatalf("past the end: %v, %v", none, err)
	}
}
