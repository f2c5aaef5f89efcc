package store

import (
	"context"
	"testing"
	"time"
)

// TestAnsweredThenInterrupted: the answer is written when it happens and the
// heartbeat moves the last moment known alive; after a crash the entry is
// closed as answered with the talk time up to the heartbeat, and the outbox
// event given is stored with it, once.
func TestAnsweredThenInterrupted(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	for _, e := range []HistoryEntry{
		{CallID: "in-answered", Direction: "in", Number: "200", StartedAt: t0},
		{CallID: "in-ringing", Direction: "in", Number: "201", StartedAt: t0.Add(time.Second)},
		{CallID: "out-dialing", Direction: "out", Number: "202", StartedAt: t0.Add(2 * time.Second)},
	} {
		if err := db.StartHistory(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.AnswerHistory(ctx, "in-answered", t0.Add(3*time.Second), "no"); err != nil {
		t.Fatal(err)
	}
	if err := db.HistoryAlive(ctx, []string{"in-answered", "in-ringing"}, t0.Add(13*time.Second)); err != nil {
		t.Fatal(err)
	}
	// Still open, but answered already: a crash now keeps the answer.
	e, err := db.HistoryByCall(ctx, "in-answered")
	if err != nil || !e.Open || !e.Answered || !e.AnsweredAt.Equal(t0.Add(3*time.Second)) || e.AnsweredBy != "no" {
		t.Fatalf("answered entry = %+v, %v", e, err)
	}

	open, err := db.InterruptedHistory(ctx)
	if err != nil || len(open) != 3 {
		t.Fatalf("InterruptedHistory = %+v, %v", open, err)
	}
	want := map[string]struct {
		outcome string
		ended   time.Time
		dur     float64
	}{
		"in-answered": {"answered", t0.Add(13 * time.Second), 10},
		"in-ringing":  {"missed", t0.Add(13 * time.Second), 0},
		"out-dialing": {"failed", t0.Add(2 * time.Second), 0},
	}
	for _, h := range open {
		w := want[h.CallID]
		if h.Outcome != w.outcome || !h.EndedAt.Equal(w.ended) || h.DurationS != w.dur {
			t.Errorf("%s closes as %s ended %v after %v s; want %+v", h.CallID, h.Outcome, h.EndedAt, h.DurationS, w)
		}
		h.Reason = "interrupted"
		ev := OutboxEvent{CallID: h.CallID, Event: "call-ended", Fields: map[string]string{"id": h.CallID}}
		closed, err := db.CloseInterrupted(ctx, h, []OutboxEvent{ev})
		if err != nil || !closed {
			t.Fatalf("close %s: %v %v", h.CallID, closed, err)
		}
		// A second closing (a crash during the first start) stores nothing.
		if closed, err := db.CloseInterrupted(ctx, h, []OutboxEvent{ev}); err != nil || closed {
			t.Fatalf("second close %s: %v %v", h.CallID, closed, err)
		}
	}
	if n, err := db.OutboxLen(ctx); err != nil || n != 3 {
		t.Fatalf("outbox holds %d, %v; want one call-ended per call", n, err)
	}
	e, _ = db.HistoryByCall(ctx, "in-answered")
	if e.Open || e.Outcome != "answered" || !e.Answered || e.Reason != "interrupted" || e.DurationS != 10 {
		t.Fatalf("closed entry = %+v", e)
	}
	if open, _ := db.InterruptedHistory(ctx); len(open) != 0 {
		t.Fatalf("still open: %+v", open)
	}
}
