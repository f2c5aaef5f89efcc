package sipua

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/softphone/softphone/store"
)

// TestHeartbeatOnlyWhileNeeded: the history heartbeat is armed by a call
// and stamps it while it is live (what bounds a kill -9's loss), takes one
// more turn after it ends (to index the entry for search), and then stays
// off: an idle phone does not wake for it (issue 20).
func TestHeartbeatOnlyWhileNeeded(t *testing.T) {
	db, err := store.OpenDB(filepath.Join(t.TempDir(), "softphone.db"))
	must(t, err)
	t.Cleanup(func() { _ = db.Close() })
	w := newHistoryWriter(&Phone{db: db, log: testLogger()})
	defer w.beat.Stop()
	if w.beating {
		t.Fatal("heartbeat armed with no call")
	}
	t0 := time.Now().Add(-time.Minute).Truncate(time.Millisecond)
	c := Call{ID: "beat-1", Direction: DirIn, Number: "+49301234567", StartedAt: t0, State: StateRingingIn}
	w.event(Event{Kind: EventCallStarted, Call: c})
	w.handled()
	w.flushGroup()
	if !w.beating {
		t.Fatal("heartbeat not armed by a live call")
	}
	before := time.Now()
	w.beatFired()
	if !w.beating {
		t.Fatal("heartbeat not armed again while the call is live")
	}
	open, err := db.InterruptedHistory(context.Background())
	if err != nil || len(open) != 1 || open[0].EndedAt.Before(before.Truncate(time.Millisecond)) {
		t.Fatalf("after a crash now: %+v, %v; want the call known alive at the heartbeat", open, err)
	}
	c.State, c.EndedAt = StateEnded, time.Now()
	w.event(Event{Kind: EventCallEnded, Call: c})
	w.handled()
	w.flushGroup()
	if !w.beating {
		t.Fatal("heartbeat stopped before its turn after the call")
	}
	w.beatFired()
	if w.beating {
		t.Fatal("heartbeat armed again with no call live")
	}
	w.handled() // e.g. after an event that wrote nothing
	if w.beating {
		t.Fatal("heartbeat armed with nothing to stamp or index")
	}
}
