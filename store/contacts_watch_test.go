package store

import (
	"context"
	"testing"
)

// TestWatchedContacts: watch is kept, changed and listed; every change of
// the contacts is told to the hooks (the phone then re-reads the list).
func TestWatchedContacts(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	told := make(chan struct{}, 16)
	db.OnContactsChanged(func() { told <- struct{}{} })
	bob, err := db.CreateContact(ctx, Contact{Name: "Bob", Number: "201", Watch: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateContact(ctx, Contact{Name: "Carol", Number: "202"}); err != nil {
		t.Fatal(err)
	}
	ws, err := db.WatchedContacts(ctx)
	if err != nil || len(ws) != 1 || ws[0].ID != bob.ID || !ws[0].Watch {
		t.Fatalf("watched %+v %v, want Bob", ws, err)
	}
	if got, _ := db.GetContact(ctx, bob.ID); !got.Watch {
		t.Errorf("GetContact lost watch: %+v", got)
	}
	bob.Watch = false
	if _, err := db.UpdateContact(ctx, bob); err != nil {
		t.Fatal(err)
	}
	if ws, _ := db.WatchedContacts(ctx); len(ws) != 0 {
		t.Errorf("still watched: %+v", ws)
	}
	if err := db.DeleteContact(ctx, bob.ID); err != nil {
		t.Fatal(err)
	}
	if n := len(told); n != 4 {
		t.Errorf("hooks told %d times, want 4 (two creates, an update, a delete)", n)
	}
}
