package web

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/store"
)

// TestOverlongNoteSaysTheLimit: a note over 4000 bytes is refused with the
// limit in words, in the page's language; the message showed "%d".
func TestOverlongNoteSaysTheLimit(t *testing.T) {
	r, db := dbRig(t)
	if err := db.StartHistory(t.Context(), store.HistoryEntry{ID: "h1", CallID: "call-1", Direction: "out", Number: "+4930555", StartedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ lang, want string }{
		{"en", "Too long: at most 4000 bytes."},
		{"de", "Zu lang: höchstens 4000 Bytes."},
	} {
		if _, err := r.st.Update(func(s *store.Settings) error { s.Appearance.Language = c.lang; return nil }); err != nil {
			t.Fatal(err)
		}
		res, body := r.form("/history/h1/note", url.Values{"note": {strings.Repeat("n", 4001)}})
		if res.StatusCode != 400 || !strings.Contains(body, c.want) {
			t.Errorf("%s: %d %q, want %q", c.lang, res.StatusCode, body, c.want)
		}
	}
	if res, _ := r.form("/history/h1/note", url.Values{"note": {strings.Repeat("n", 4000)}}); res.StatusCode != 200 {
		t.Errorf("a note of 4000 bytes: %d", res.StatusCode)
	}
}
