package store

import (
	"context"
	"testing"
	"time"
)

func TestListHistoryText(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	for i, e := range []HistoryEntry{
		{CallID: "c1", Number: "+49 30 1234", Name: "Ada Lovelace", URI: "sip:ada@pbx.example"},
		{CallID: "c2", Number: "200", Name: `Bob "The Builder" 100%`, URI: "sip:200@pbx.example"},
		{CallID: "c3", Number: "300", URI: "sip:300@other.example"},
	} {
		e.StartedAt = t0.Add(time.Duration(i) * time.Minute)
		if err := db.StartHistory(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	// The name is learned later: the search index follows the update.
	if err := db.FinishHistory(ctx, HistoryEntry{CallID: "c3", Name: "Carol Jones", Outcome: "answered"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"lovelace", []string{"c1"}}, // case-insensitive, index
		{"30 12", []string{"c1"}},    // inside the number
		{"pbx.example", []string{"c2", "c1"}},
		{"carol", []string{"c3"}}, // name written by FinishHistory
		{`"The`, []string{"c2"}},  // quotes are literal
		{"100%", []string{"c2"}},  // so is %
		{"20", []string{"c2"}},    // short: scanned
		{"%", []string{"c2"}},     // short wildcard is literal
		{"xyz", nil},
	} {
		got, err := db.ListHistory(ctx, HistoryFilter{Text: tc.text})
		if err != nil {
			t.Fatalf("%q: %v", tc.text, err)
		}
		var ids []string
		for _, e := range got {
			ids = append(ids, e.CallID)
		}
		if len(ids) != len(tc.want) || (len(ids) > 0 && ids[0] != tc.want[0]) || (len(ids) > 1 && ids[1] != tc.want[1]) {
			t.Errorf("Text %q: got %v, want %v", tc.text, ids, tc.want)
		}
	}
	// A deleted entry leaves the index (history rows are only deleted by hand).
	if err := db.g.Exec("DELETE FROM history WHERE call_id = 'c1'").Error; err != nil {
		t.Fatal(err)
	}
	if got, _ := db.ListHistory(ctx, HistoryFilter{Text: "lovelace"}); len(got) != 0 {
		t.Fatalf("deleted entry still found: %+v", got)
	}
	var n int
	if err := db.g.Raw("SELECT COUNT(*) FROM history_search WHERE history_search MATCH '\"example\"'").Scan(&n).Error; err != nil || n != 2 {
		t.Fatalf("index holds %d matches, %v; want 2", n, err)
	}
}
