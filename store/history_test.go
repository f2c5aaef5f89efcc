package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

func TestHistoryStartFinish(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	start := HistoryEntry{CallID: "call-1", SeanceID: "s-1", AccountID: "acc-1", Account: "alice@pbx",
		Direction: "in", Number: "200", URI: "sip:200@pbx", StartedAt: t0, Tags: []string{"sales"}}
	if err := db.StartHistory(ctx, start); err != nil {
		t.Fatal(err)
	}
	// A repeated start is ignored.
	dup := start
	dup.Number = "999"
	if err := db.StartHistory(ctx, dup); err != nil {
		t.Fatal(err)
	}
	list, err := db.ListHistory(ctx, HistoryFilter{})
	if err != nil || len(list) != 1 {
		t.Fatalf("ListHistory = %+v, %v", list, err)
	}
	got := list[0]
	if got.ID == "" || !got.Open || got.Number != "200" || !got.StartedAt.Equal(t0) || !slices.Equal(got.Tags, []string{"sales"}) {
		t.Fatalf("started entry = %+v", got)
	}

	fin := HistoryEntry{CallID: "call-1", Name: "Ada", Outcome: "answered", Answered: true, DurationS: 42.5,
		Reason: "remote-hangup", AnsweredBy: "no", AnsweredAt: t0.Add(5 * time.Second),
		EndedAt: t0.Add(47500 * time.Millisecond), Jitter: 3.5, Loss: 0.01}
	if err := db.FinishHistory(ctx, fin); err != nil {
		t.Fatal(err)
	}
	e, err := db.GetHistory(ctx, got.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := HistoryEntry{ID: got.ID, CallID: "call-1", SeanceID: "s-1", AccountID: "acc-1", Account: "alice@pbx",
		Direction: "in", Number: "200", URI: "sip:200@pbx", Name: "Ada", Outcome: "answered", Answered: true,
		DurationS: 42.5, Reason: "remote-hangup", AnsweredBy: "no", StartedAt: t0, AnsweredAt: t0.Add(5 * time.Second),
		EndedAt: t0.Add(47500 * time.Millisecond), Jitter: 3.5, Loss: 0.01, Tags: []string{"sales"}}
	if !reflect.DeepEqual(e, want) {
		t.Fatalf("finished entry\n got %+v\nwant %+v", e, want)
	}
	if _, err := db.GetHistory(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("GetHistory(unknown): %v", err)
	}

	// A finish without a start writes the whole entry.
	lost := HistoryEntry{CallID: "call-2", Direction: "out", Number: "300", Dialed: "300", Outcome: "failed",
		Reason: "busy", StartedAt: t0.Add(time.Hour), EndedAt: t0.Add(time.Hour + time.Second)}
	if err := db.FinishHistory(ctx, lost); err != nil {
		t.Fatal(err)
	}
	list, _ = db.ListHistory(ctx, HistoryFilter{})
	if len(list) != 2 || list[0].CallID != "call-2" || list[0].Open || list[0].Outcome != "failed" {
		t.Fatalf("after lost start: %+v", list)
	}
	if err := db.StartHistory(ctx, HistoryEntry{}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("start without call id: %v", err)
	}
}

func TestHistoryNoteTags(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	if err := db.StartHistory(ctx, HistoryEntry{ID: "h1", CallID: "c1", StartedAt: t0}); err != nil {
		t.Fatal(err)
	}
	if err := db.SetHistoryNote(ctx, "h1", "call back Monday"); err != nil {
		t.Fatal(err)
	}
	if err := db.SetHistoryNote(ctx, "nope", "x"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("note of unknown: %v", err)
	}
	if err := db.SetHistoryTags(ctx, "h1", []string{"support", "callback", "support"}); err != nil {
		t.Fatal(err)
	}
	e, _ := db.GetHistory(ctx, "h1")
	if e.Note != "call back Monday" || !slices.Equal(e.Tags, []string{"callback", "support"}) {
		t.Fatalf("entry = %+v", e)
	}
	if err := db.SetHistoryTags(ctx, "h1", []string{"support", "no-such-code"}); !errors.Is(err, ErrUnknownCode) {
		t.Fatalf("unknown code: %v, want ErrUnknownCode", err)
	}
	if e, _ := db.GetHistory(ctx, "h1"); !slices.Equal(e.Tags, []string{"callback", "support"}) {
		t.Fatalf("a refused change must change nothing, tags = %v", e.Tags)
	}
	if err := db.RetireTaxonomy(ctx, "callback"); err != nil {
		t.Fatal(err)
	}
	// Keeping a retired code the call already has is fine; giving it anew is not.
	if err := db.SetHistoryTags(ctx, "h1", []string{"callback"}); err != nil {
		t.Fatalf("keep retired tag: %v", err)
	}
	if err := db.StartHistory(ctx, HistoryEntry{ID: "h2", CallID: "c2", StartedAt: t0}); err != nil {
		t.Fatal(err)
	}
	if err := db.SetHistoryTags(ctx, "h2", []string{"callback"}); !errors.Is(err, ErrUnknownCode) {
		t.Fatalf("retired code on a new call: %v, want ErrUnknownCode", err)
	}
	if err := db.SetHistoryTags(ctx, "nope", nil); !errors.Is(err, ErrNotFound) {
		t.Fatalf("tags of unknown: %v", err)
	}
	if err := db.SetHistoryTags(ctx, "h1", nil); err != nil {
		t.Fatal(err)
	}
	if e, _ := db.GetHistory(ctx, "h1"); len(e.Tags) != 0 {
		t.Fatalf("tags after clearing = %v", e.Tags)
	}
}

func TestCloseOpenHistory(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	for _, e := range []HistoryEntry{
		{ID: "in-unanswered", CallID: "c1", Direction: "in", StartedAt: t0},
		{ID: "out-unanswered", CallID: "c2", Direction: "out", StartedAt: t0},
		{ID: "answered", CallID: "c3", Direction: "in", Answered: true, AnsweredAt: t0, StartedAt: t0},
	} {
		if err := db.StartHistory(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.FinishHistory(ctx, HistoryEntry{CallID: "c3", Outcome: "answered", Answered: true, EndedAt: t0.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	at := t0.Add(time.Hour)
	n, err := db.CloseOpenHistory(ctx, "crash", at)
	if err != nil || n != 2 {
		t.Fatalf("CloseOpenHistory = %d, %v; want 2", n, err)
	}
	for id, outcome := range map[string]string{"in-unanswered": "missed", "out-unanswered": "failed"} {
		e, _ := db.GetHistory(ctx, id)
		if e.Open || e.Outcome != outcome || e.Reason != "crash" || !e.EndedAt.Equal(at) {
			t.Errorf("%s = %+v", id, e)
		}
	}
	if e, _ := db.GetHistory(ctx, "answered"); e.Reason == "crash" {
		t.Errorf("a finished entry was touched: %+v", e)
	}
	if n, _ := db.CloseOpenHistory(ctx, "crash", at); n != 0 {
		t.Fatalf("second close = %d", n)
	}
}

func TestHistoryPerDay(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	day := time.Date(2026, 3, 1, 12, 0, 0, 0, time.Local)
	add := func(i int, at time.Time, outcome string) {
		id := fmt.Sprint("c", i)
		if err := db.FinishHistory(ctx, HistoryEntry{CallID: id, Outcome: outcome, StartedAt: at, EndedAt: at}); err != nil {
			t.Fatal(err)
		}
	}
	add(1, day, "answered")
	add(2, day.Add(time.Hour), "answered")
	add(3, day.Add(2*time.Hour), "missed")
	add(4, day.Add(24*time.Hour), "missed")
	add(5, day.Add(-72*time.Hour), "answered") // before since
	if err := db.StartHistory(ctx, HistoryEntry{CallID: "open", StartedAt: day}); err != nil {
		t.Fatal(err)
	}
	got, err := db.HistoryPerDay(ctx, day.Add(-24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	want := []DayCount{{"2026-03-01", "answered", 2}, {"2026-03-01", "missed", 1}, {"2026-03-02", "missed", 1}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("HistoryPerDay = %+v, want %+v", got, want)
	}
}
