package api

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/store"
)

func TestHistCacheRules(t *testing.T) {
	h := newHistCache()
	now := time.Now()
	h.put("k", []byte("a"), now)
	if b, ok := h.get("k"); !ok || string(b) != "a" {
		t.Fatal("not kept")
	}
	h.changed()
	if _, ok := h.get("k"); ok {
		t.Fatal("kept across a change")
	}
	// An answer read from the database before or during the quiet time is
	// not kept.
	h.put("k", []byte("b"), time.Now())
	if _, ok := h.get("k"); ok {
		t.Fatal("kept during the quiet time")
	}
	h.quiet = time.Time{}
	h.put("k", []byte("c"), time.Now().Add(-2*histCacheTTL))
	if _, ok := h.get("k"); ok {
		t.Fatal("kept past its time")
	}
}

// A call that ends shows in GET /history at once, even when the answer was
// kept just before: the call event drops kept answers and the history row
// the phone writes a moment after the event is not hidden.
func TestHistoryFreshAfterCallEvent(t *testing.T) {
	e := newEnv(t)
	if n := len(historyOf(t, e, "")); n != 0 {
		t.Fatalf("%d entries", n)
	}
	historyOf(t, e, "") // kept now
	c := sipua.Call{ID: uuid.NewString(), SeanceID: uuid.NewString(), Direction: sipua.DirIn, State: sipua.StateEnded,
		Number: "+4930", Outcome: sipua.OutcomeMissed, StartedAt: time.Now(), EndedAt: time.Now()}
	e.bus.Publish(sipua.Event{Kind: sipua.EventCallEnded, Call: c})
	waitFor(t, func() bool {
		e.srv.hist.mu.Lock()
		defer e.srv.hist.mu.Unlock()
		return time.Now().Before(e.srv.hist.quiet)
	})
	historyOf(t, e, "") // read while the phone has not written yet
	if err := e.db.FinishHistory(context.Background(), store.HistoryEntry{CallID: c.ID, SeanceID: c.SeanceID,
		Direction: "in", Number: c.Number, Outcome: "missed", StartedAt: c.StartedAt, EndedAt: c.EndedAt}); err != nil {
		t.Fatal(err)
	}
	if n := len(historyOf(t, e, "")); n != 1 {
		t.Fatalf("%d entries after the call ended", n)
	}
}
