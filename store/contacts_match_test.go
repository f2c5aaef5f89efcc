package store

import (
	"context"
	"errors"
	"testing"
)

// One contact is found by its number however it is written, in the region
// set (issue 16 item 4); a change of region reads the numbers again.
func TestContactMatchFormats(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	ada, err := db.CreateContact(ctx, Contact{Name: "Ada", Number: "+49 30 1234567"})
	if err != nil {
		t.Fatal(err)
	}
	bob, err := db.CreateContact(ctx, Contact{Name: "Bob", Number: "(212) 555-0123"})
	if err != nil {
		t.Fatal(err)
	}
	ext, err := db.CreateContact(ctx, Contact{Name: "Desk", Number: "201"})
	if err != nil {
		t.Fatal(err)
	}
	find := func(n string) string {
		c, err := db.FindContactByNumber(ctx, n)
		if errors.Is(err, ErrNotFound) {
			return ""
		}
		if err != nil {
			t.Fatalf("FindContactByNumber(%q): %v", n, err)
		}
		return c.ID
	}
	// Without a region only international forms meet.
	if got := find("+49301234567"); got != ada.ID {
		t.Errorf("+49301234567 without region = %q, want Ada", got)
	}
	if got := find("030 1234567"); got != "" {
		t.Errorf("030 1234567 without region = %q, want none", got)
	}
	db.SetNumberRegion("DE")
	for _, n := range []string{"+49301234567", "0049 30 1234567", "030 1234567", "(030) 123-45-67", "+49 (0)30 1234567"} {
		if got := find(n); got != ada.ID {
			t.Errorf("%q in DE = %q, want Ada (%s)", n, got, ada.ID)
		}
	}
	if got := find("+1 212 555 0123"); got != "" {
		t.Errorf("+1 212 555 0123 in DE = %q; Bob's number is national to DE, not US", got)
	}
	if got := find("201"); got != ext.ID {
		t.Errorf("extension 201 = %q, want Desk", got)
	}
	if got := find("+49201"); got != "" {
		t.Errorf("+49201 = %q; an extension is no E.164 number", got)
	}
	db.SetNumberRegion("US")
	for _, n := range []string{"+1 212 555 0123", "2125550123", "1-212-555-0123", "011 49 30 1234567"} {
		want := bob.ID
		if n == "011 49 30 1234567" {
			want = ada.ID
		}
		if got := find(n); got != want {
			t.Errorf("%q in US = %q, want %q", n, got, want)
		}
	}
	if got := find("030 1234567"); got != "" {
		t.Errorf("030 1234567 in US = %q, want none", got)
	}
}

func TestFindContactByName(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	ada, _ := db.CreateContact(ctx, Contact{Name: "Ada Lovelace", Number: "+49 30 1234567"})
	adam, _ := db.CreateContact(ctx, Contact{Name: "Adam", Number: "202"})
	_, _ = db.CreateContact(ctx, Contact{Name: "Nobody"})
	for q, want := range map[string]string{"ada lovelace": ada.ID, " Ada Lovelace ": ada.ID, "Ada L": "", "Ada": "", "Adam": adam.ID, "Nobody": "", "zed": ""} {
		c, err := db.FindContactByName(ctx, q)
		if (want == "") != errors.Is(err, ErrNotFound) || c.ID != want {
			t.Errorf("FindContactByName(%q) = %q, %v; want %q", q, c.ID, err, want)
		}
	}
}
