package store

import (
	"context"
	"testing"
	"time"
)

// TestHistorySecure: migration 0007's secure column is written when a call
// ends (also for a finish whose start was lost) and read by every reader.
func TestHistorySecure(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	if err := db.StartHistory(ctx, HistoryEntry{CallID: "enc", Direction: "out", Number: "1", StartedAt: t0}); err != nil {
		t.Fatal(err)
	}
	if err := db.StartHistory(ctx, HistoryEntry{CallID: "clear", Direction: "out", Number: "2", StartedAt: t0.Add(time.Second)}); err != nil {
		t.Fatal(err)
	}
	for _, e := range []HistoryEntry{
		{CallID: "enc", Outcome: "answered", Secure: true, EndedAt: t0.Add(time.Minute)},
		{CallID: "clear", Outcome: "answered", EndedAt: t0.Add(time.Minute)},
		{CallID: "lost-start", Direction: "in", Number: "3", Outcome: "answered", Secure: true, StartedAt: t0.Add(2 * time.Second), EndedAt: t0.Add(time.Minute)},
	} {
		if err := db.FinishHistory(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	list, err := db.ListHistory(ctx, HistoryFilter{})
	if err != nil || len(list) != 3 {
		t.Fatalf("ListHistory = %d entries, %v", len(list), err)
	}
	want := map[string]bool{"enc": true, "clear": false, "lost-start": true}
	for _, e := range list {
		if e.Secure != want[e.CallID] {
			t.Errorf("%s: secure %v", e.CallID, e.Secure)
		}
		one, err := db.GetHistory(ctx, e.ID)
		if err != nil || one.Secure != want[e.CallID] {
			t.Errorf("GetHistory %s: secure %v, %v", e.CallID, one.Secure, err)
		}
	}
}
