package api

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/softphone/softphone/store"
)

// TestHistoryRowsKeptBounded: the entries GET /history keeps as rendered
// JSON are bounded in bytes, not only in number. A note may have 4000
// bytes (store.NoteMax) and json.Marshal writes each '<' as \u003c, six
// bytes: 400 entries with such notes would be kept as 9.6 MB for the
// phone's life (8192 entries: 196 MB). The answer stays whole.
func TestHistoryRowsKeptBounded(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	note := strings.Repeat("<", store.NoteMax)
	const n = 400
	for i := range n {
		start := t0.Add(time.Duration(i) * time.Minute)
		h := store.HistoryEntry{CallID: uuid.NewString(), SeanceID: uuid.NewString(), AccountID: accountA,
			Direction: "in", Number: "+49301" + itoa(i), Outcome: "missed", Reason: "remote-hangup",
			AnsweredBy: "no", StartedAt: start, EndedAt: start.Add(30 * time.Second)}
		if err := e.db.StartHistory(ctx, store.HistoryEntry{CallID: h.CallID, Number: h.Number, StartedAt: start}); err != nil {
			t.Fatal(err)
		}
		if err := e.db.FinishHistory(ctx, h); err != nil {
			t.Fatal(err)
		}
	}
	hs, err := e.db.ListHistory(ctx, store.HistoryFilter{Limit: n})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hs {
		if err := e.db.SetHistoryNote(ctx, h.ID, note); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 { // the second is served from what was kept
		var got []map[string]any
		e.get("/history?limit=1000").json(t, &got)
		if len(got) != n || got[0]["note"] != note {
			t.Fatalf("%d entries", len(got))
		}
	}
	e.srv.hist.mu.RLock()
	kept := 0
	for _, r := range e.srv.hist.rows {
		kept += len(r.json)
	}
	e.srv.hist.mu.RUnlock()
	if kept > histBytesMax {
		t.Fatalf("%d bytes kept, at most %d", kept, histBytesMax)
	}
}
