package sipua

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/softphone/softphone/audio"
	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// recRows keeps audio's recording rows in a real store (as the wiring does).
type recRows struct{ db *store.DB }

func (s recRows) CreateRecording(ctx context.Context, r audio.RecordingInfo) error {
	_, err := s.db.CreateRecording(ctx, store.Recording{ID: r.ID, CallID: r.CallID, SeanceID: r.SeanceID, StartedAt: r.Started, Path: r.Path})
	return err
}

func (s recRows) UpdateRecording(ctx context.Context, r audio.RecordingInfo) error {
	return s.db.UpdateRecording(ctx, store.Recording{ID: r.ID, CallID: r.CallID, SeanceID: r.SeanceID, StartedAt: r.Started,
		DurationS: r.Duration.Seconds(), SizeBytes: r.Size, Path: r.Path})
}

// TestRecordingNamedInHistory: with recording.mode all, the id of the
// recording made of an answered call reaches the call (RecordingID, also
// after it ended) and its history entry; an unanswered call names none.
func TestRecordingNamedInHistory(t *testing.T) {
	db, err := store.OpenDB(filepath.Join(t.TempDir(), "softphone.db"))
	must(t, err)
	t.Cleanup(func() { _ = db.Close() })
	kam := testpeer.Kamailio(t)
	b := startPhone(t, account(kam, "bob", "udp"), "bobpw")
	b.waitRegistered()
	acc := account(kam, "alice", "udp")
	home := t.TempDir()
	a := startPhoneWith(t, store.Settings{SIP: store.SIPSettings{Listen: "127.0.0.1:0"}, Accounts: []store.Account{acc},
		Recording: store.RecordingSettings{Mode: "all"}},
		secretMap{"account:" + acc.ID: "alicepw"}, db, func(c *Config) {
			e, err := audio.NewEngine(audio.EngineConfig{Home: home, Logger: testLogger(), Recordings: recRows{db}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = e.Close() })
			c.Media = e
		})
	a.waitRegistered()

	c, err := a.Dial(bg, "bob", "")
	must(t, err)
	in := b.waitState("", StateRingingIn, 10*time.Second)
	must(t, b.Answer(bg, in.ID))
	rec := a.wait("recording starts", 10*time.Second, func(e Event) bool {
		return e.Call.ID == c.ID && e.Kind == EventCallUpdated && e.Call.Recording
	})
	if rec.Call.RecordingID == "" {
		t.Fatal("recording started without an id on the call")
	}
	must(t, a.Hangup(bg, c.ID))
	ended := a.waitState(c.ID, StateEnded, 10*time.Second)
	if ended.RecordingID != rec.Call.RecordingID || ended.Recording {
		t.Errorf("ended call: recording %v id %q, want id %q", ended.Recording, ended.RecordingID, rec.Call.RecordingID)
	}
	h := waitHistory(t, db, c.ID, func(h store.HistoryEntry) bool { return !h.Open })
	if h.Recording != rec.Call.RecordingID {
		t.Fatalf("history entry names recording %q, want %q", h.Recording, rec.Call.RecordingID)
	}
	row, err := db.GetRecording(bg, h.Recording)
	must(t, err)
	if row.CallID != c.ID || row.SeanceID != c.SeanceID {
		t.Errorf("recording row %+v", row)
	}

	// Cancelled while ringing: never recorded, no id.
	c2, err := a.Dial(bg, "bob", "")
	must(t, err)
	a.waitState(c2.ID, StateRingingOut, 10*time.Second)
	must(t, a.Hangup(bg, c2.ID))
	if h2 := waitHistory(t, db, c2.ID, func(h store.HistoryEntry) bool { return !h.Open }); h2.Recording != "" {
		t.Errorf("unanswered call names recording %q", h2.Recording)
	}
}
