package api

import (
	"context"
	"strings"
	"testing"

	"github.com/softphone/softphone/store"
)

// TestPendingTranscriptSaysWaiting: a transcript that waits its turn (many
// recordings before it, a full queue kept in SQLite) is shown waiting, in
// English and German; "being made" is said of the running one only. The
// page said "The transcript is being made" of every pending one, which
// could wait for hours behind a backlog.
func TestPendingTranscriptSaysWaiting(t *testing.T) {
	e := newEnv(t)
	s := e.seed()
	id := s.recording.ID
	e.update(func(st *store.Settings) {
		st.Transcription.Recogniser, st.Transcription.URL = "http", "http://127.0.0.1:1"
	})
	save := func(status string) {
		t.Helper()
		if err := e.db.SaveTranscript(context.Background(), store.Transcript{RecordingID: id, Status: status, Recogniser: "http"}); err != nil {
			t.Fatal(err)
		}
	}
	page := func() string {
		t.Helper()
		r := e.get("/ui/recordings/" + id)
		if r.status != 200 {
			t.Fatalf("recording page: %d %s", r.status, r.body)
		}
		return between(string(r.body), "<h2>", "<script>")
	}
	for _, c := range []struct {
		lang, status, want, not string
	}{
		{"en", "pending", "The transcript is waiting to be made", "being made."},
		{"en", "running", "The transcript is being made.", "waiting"},
		{"de", "pending", "Die Abschrift wartet darauf, erstellt zu werden", "wird erstellt."},
		{"de", "running", "Die Abschrift wird erstellt.", "wartet"},
	} {
		e.update(func(st *store.Settings) { st.Appearance.Language = c.lang })
		save(c.status)
		if p := page(); !strings.Contains(p, c.want) || strings.Contains(p, c.not) {
			t.Errorf("%s transcript (%s): %s", c.status, c.lang, p)
		}
	}
}
