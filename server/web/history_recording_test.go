package web

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/store"
)

// fixedAddr is where a local API listens, for the recording links.
type fixedAddr string

func (a fixedAddr) Addr() string { return string(a) }

// TestHistoryListensToRecording: a history entry that names its recording
// links the API's page of it ("Listen", "Anhören") while the API is on, and
// says it was recorded while the API is off.
func TestHistoryListensToRecording(t *testing.T) {
	dir := t.TempDir()
	db, err := store.OpenDB(filepath.Join(dir, "softphone.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	r := newRig(t, func(c *Config) {
		c.DB = db
		c.Secrets = store.OpenSecrets(dir)
		c.Home = dir
		c.API = fixedAddr("127.0.0.1:18377")
	})
	r.login()
	ctx := context.Background()
	start := time.Now().Add(-time.Hour)
	const rec = "5b0c7a1e-2f3d-4e5a-8b9c-0d1e2f3a4b5c"
	e := store.HistoryEntry{CallID: "call-rec", Direction: "in", Number: "+4930777", StartedAt: start}
	if err := db.StartHistory(ctx, e); err != nil {
		t.Fatal(err)
	}
	e.Outcome, e.Reason, e.EndedAt, e.AnsweredAt, e.DurationS, e.Recording = "answered", "remote-hangup", start.Add(time.Minute), start.Add(5*time.Second), 55, rec
	if err := db.FinishHistory(ctx, e); err != nil {
		t.Fatal(err)
	}
	link := `href="http://127.0.0.1:18377/ui/recordings/` + rec + `"`
	for _, c := range []struct {
		lang     string
		apiOn    bool
		want     string
		wantLink bool
	}{
		{"en", true, ">Listen</a>", true}, {"de", true, ">Anhören</a>", true},
		{"en", false, "Recorded (switch on Local control to listen)", false},
		{"de", false, "Aufgenommen (zum Anhören die lokale Steuerung einschalten)", false},
	} {
		if _, err := r.st.Update(func(s *store.Settings) error {
			s.Appearance.Language, s.API.Enabled = c.lang, c.apiOn
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		res, body := r.do("GET", "/history", nil, nil)
		if res.StatusCode != 200 || !strings.Contains(body, c.want) || strings.Contains(body, link) != c.wantLink {
			t.Errorf("%s, API on %v: %d, want %q and link %v", c.lang, c.apiOn, res.StatusCode, c.want, c.wantLink)
		}
	}
}
