package sipua

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// TestHistoryWithSQLite: calls leave complete history entries in a real
// store, names come from contacts, and entries left open by a crash are
// closed at the next start.
func TestHistoryWithSQLite(t *testing.T) {
	db, err := store.OpenDB(filepath.Join(t.TempDir(), "softphone.db"))
	must(t, err)
	t.Cleanup(func() { _ = db.Close() })
	ctx := context.Background()
	_, err = db.CreateContact(ctx, store.Contact{Name: "Bob Builder", Number: "bob"})
	must(t, err)
	// An entry a crashed run left open.
	must(t, db.StartHistory(ctx, store.HistoryEntry{CallID: "crashed-call", Direction: "in", Number: "x", StartedAt: time.Now().Add(-time.Hour)}))

	kam := testpeer.Kamailio(t)
	b := startPhone(t, account(kam, "bob", "udp"), "bobpw")
	b.waitRegistered()
	acc := account(kam, "alice", "udp")
	a := startPhoneWith(t, store.Settings{SIP: store.SIPSettings{Listen: "127.0.0.1:0"}, Accounts: []store.Account{acc}},
		secretMap{"account:" + acc.ID: "alicepw"}, db)
	a.waitRegistered()

	crashed := waitHistory(t, db, "crashed-call", func(h store.HistoryEntry) bool { return !h.Open })
	if crashed.Reason != ReasonCrashed || crashed.Outcome != OutcomeMissed {
		t.Fatalf("crashed entry %+v", crashed)
	}

	// Answered, then hung up by bob.
	c, err := a.Dial(bg, "bob", "")
	must(t, err)
	in := b.waitState("", StateRingingIn, 10*time.Second)
	open := waitHistory(t, db, c.ID, func(store.HistoryEntry) bool { return true })
	if !open.Open || open.Dialed != "bob" || open.Direction != "out" {
		t.Fatalf("open entry %+v", open)
	}
	must(t, b.Answer(bg, in.ID))
	a.waitState(c.ID, StateActive, 5*time.Second)
	time.Sleep(100 * time.Millisecond) // some talk time; nothing to await
	must(t, b.Hangup(bg, in.ID))
	h := waitHistory(t, db, c.ID, func(h store.HistoryEntry) bool { return !h.Open })
	if h.Outcome != OutcomeAnswered || !h.Answered || h.DurationS <= 0 || h.Reason != ReasonRemoteHangup ||
		h.AnsweredBy != "no" || h.Name != "Bob Builder" || h.SeanceID != c.SeanceID || h.Number != "bob" || h.AccountID != acc.ID {
		t.Fatalf("answered entry %+v", h)
	}

	// Not answered: cancelled by us.
	c2, err := a.Dial(bg, "bob", "")
	must(t, err)
	a.waitState(c2.ID, StateRingingOut, 10*time.Second)
	must(t, a.Hangup(bg, c2.ID))
	h2 := waitHistory(t, db, c2.ID, func(h store.HistoryEntry) bool { return !h.Open })
	if h2.Answered || h2.DurationS != 0 || h2.Reason != ReasonCancelled || h2.Outcome != OutcomeMissed {
		t.Fatalf("cancelled entry %+v", h2)
	}
}

func waitHistory(t *testing.T, db *store.DB, callID string, ok func(store.HistoryEntry) bool) store.HistoryEntry {
	t.Helper()
	var got store.HistoryEntry
	if !testpeer.WaitFor(10*time.Second, func() bool {
		hs, err := db.ListHistory(context.Background(), store.HistoryFilter{Limit: 100})
		if err != nil {
			return false
		}
		for _, h := range hs {
			if h.CallID == callID && ok(h) {
				got = h
				return true
			}
		}
		return false
	}) {
		t.Fatalf("no history entry for %s", callID)
	}
	return got
}
