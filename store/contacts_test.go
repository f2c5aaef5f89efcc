package store

import (
	"context"
	"errors"
	"testing"
)

func TestContacts(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)

	if _, err := db.CreateContact(ctx, Contact{}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("empty contact: %v, want ErrInvalid", err)
	}
	ada, err := db.CreateContact(ctx, Contact{Name: "Ada Lovelace", Number: "+49 30 1234-5", AccountID: "acc-1"})
	if err != nil {
		t.Fatal(err)
	}
	if ada.ID == "" {
		t.Fatal("CreateContact gave no id")
	}
	bob, err := db.CreateContact(ctx, Contact{Name: "bob", Number: "200"})
	if err != nil {
		t.Fatal(err)
	}

	all, err := db.ListContacts(ctx, "")
	if err != nil || len(all) != 2 || all[0].ID != ada.ID || all[1].ID != bob.ID {
		t.Fatalf("ListContacts = %+v, %v; want Ada then bob (case-insensitive name order)", all, err)
	}
	for _, q := range []string{"love", "LOVE", "+4930", "30 1234", "1234-5"} {
		got, err := db.ListContacts(ctx, q)
		if err != nil || len(got) != 1 || got[0].ID != ada.ID {
			t.Errorf("ListContacts(%q) = %+v, %v; want Ada", q, got, err)
		}
	}
	if got, _ := db.ListContacts(ctx, "%"); len(got) != 0 {
		t.Errorf("ListContacts(%%) = %+v; a wildcard must be taken literally", got)
	}

	got, err := db.GetContact(ctx, ada.ID)
	if err != nil || got != ada {
		t.Fatalf("GetContact = %+v, %v; want %+v", got, err, ada)
	}
	if _, err := db.GetContact(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("GetContact(unknown): %v, want ErrNotFound", err)
	}

	for _, n := range []string{"+4930 12345", "+49301234-5", "+49 (30) 12345"} {
		f, err := db.FindContactByNumber(ctx, n)
		if err != nil || f.ID != ada.ID {
			t.Errorf("FindContactByNumber(%q) = %+v, %v; want Ada", n, f, err)
		}
	}
	if _, err := db.FindContactByNumber(ctx, "999"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("FindContactByNumber(unknown): %v, want ErrNotFound", err)
	}
	if _, err := db.FindContactByNumber(ctx, ""); !errors.Is(err, ErrNotFound) {
		t.Fatalf("FindContactByNumber(empty): %v, want ErrNotFound", err)
	}

	bob.Name, bob.Number = "Bob", "201"
	if _, err := db.UpdateContact(ctx, bob); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.GetContact(ctx, bob.ID); got != bob {
		t.Fatalf("after update: %+v, want %+v", got, bob)
	}
	if f, err := db.FindContactByNumber(ctx, "201"); err != nil || f.ID != bob.ID {
		t.Fatalf("find by the new number: %+v, %v", f, err)
	}
	if _, err := db.UpdateContact(ctx, Contact{ID: "nope", Name: "x"}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("UpdateContact(unknown): %v, want ErrNotFound", err)
	}

	if err := db.DeleteContact(ctx, bob.ID); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteContact(ctx, bob.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second delete: %v, want ErrNotFound", err)
	}
	if all, _ := db.ListContacts(ctx, ""); len(all) != 1 {
		t.Fatalf("after delete: %+v", all)
	}
	// Lookups by number are answered from memory: every change shows at once.
	if _, err := db.FindContactByNumber(ctx, "201"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("find a deleted contact's number: %v, want ErrNotFound", err)
	}
	twin, err := db.CreateContact(ctx, Contact{Name: "Ada's twin", Number: "+49 30 12345"})
	if err != nil {
		t.Fatal(err)
	}
	if f, _ := db.FindContactByNumber(ctx, "+493012345"); f.ID != ada.ID {
		t.Fatalf("two contacts share a number: found %+v, want the older (Ada)", f)
	}
	ada.Name = "Ada L."
	if _, err := db.UpdateContact(ctx, ada); err != nil {
		t.Fatal(err)
	}
	if f, _ := db.FindContactByNumber(ctx, "+493012345"); f.Name != "Ada L." {
		t.Fatalf("after renaming: found %+v", f)
	}
	if err := db.DeleteContact(ctx, ada.ID); err != nil {
		t.Fatal(err)
	}
	if f, _ := db.FindContactByNumber(ctx, "+493012345"); f.ID != twin.ID {
		t.Fatalf("after deleting the older: found %+v, want the twin", f)
	}
}
