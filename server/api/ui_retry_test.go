package api

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/store"
)

// doneDB is the real store, telling each transcript saved done.
type doneDB struct {
	*store.DB
	done chan string
}

func (d doneDB) SaveTranscript(ctx context.Context, t store.Transcript) error {
	err := d.DB.SaveTranscript(ctx, t)
	if err == nil && t.Status == "done" {
		d.done <- t.RecordingID
	}
	return err
}

// TestFailedTranscriptTryAgain: the recording page of a failed transcript
// says why (a full disk in the page's words, another reason as stored) and
// has "Try again", a form button that runs it again through the page's own
// handler (README: "a failed one can be run again"; nothing ran Retry, the
// page said only "could not be made"). A pending transcript while no
// recogniser is set says so instead of "being made" for ever. The runner,
// the store and the recogniser (http, a local server) are real.
func TestFailedTranscriptTryAgain(t *testing.T) {
	recogniser := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"text": "please call me back",
			"segments": []map[string]any{{"start": 0.2, "end": 1.0, "text": "please call me back"}}})
	}))
	defer recogniser.Close()
	var runner *sipua.Transcripts
	e := newEnvCfg(t, func(c *Config) { c.Transcripts = runnerOf(&runner) })
	s := e.seed()
	id := s.recording.ID
	ctx := context.Background()
	pcm := make([]int16, 16000)
	for i := range pcm {
		pcm[i] = int16((i%40 - 20) * 800)
	}
	if err := testpeer.WriteWAV(filepath.Join(e.home, "recordings", id+".wav"), 16000, 1, pcm); err != nil {
		t.Fatal(err)
	}
	ddb := doneDB{DB: e.db, done: make(chan string, 4)}
	runner = sipua.NewTranscripts(sipua.TranscriptsConfig{DB: ddb, Home: e.home, Settings: e.set.Get})
	rctx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- runner.Serve(rctx) }()
	defer func() { stop(); <-served }()

	page := func() string {
		t.Helper()
		r := e.get("/ui/recordings/" + id)
		if r.status != 200 {
			t.Fatalf("recording page: %d %s", r.status, r.body)
		}
		return string(r.body)
	}
	save := func(tr store.Transcript) {
		t.Helper()
		tr.RecordingID = id
		if err := e.db.SaveTranscript(ctx, tr); err != nil {
			t.Fatal(err)
		}
	}

	// Pending while no recogniser is set (the default): not "being made".
	save(store.Transcript{Status: "pending", Recogniser: "http"})
	if p := page(); !strings.Contains(p, "no recogniser is set") || strings.Contains(p, "The transcript is being made") {
		t.Errorf("pending without a recogniser: %s", between(p, "<h2>", "<script>"))
	}
	e.update(func(st *store.Settings) { st.Appearance.Language = "de" })
	if p := page(); !strings.Contains(p, "Keine Erkennung ist eingestellt") {
		t.Errorf("pending without a recogniser (German): %s", between(p, "<h2>", "<script>"))
	}

	// Failed for a full disk: said in words, and Try again (once a
	// recogniser is set).
	save(store.Transcript{Status: "failed", Recogniser: "http",
		Error: "transcribe recordings/x.wav: audio: transcription failed: the disk of the recordings is full: no room for the copies of the channels the recogniser reads; free some space"})
	if p := page(); !strings.Contains(p, "Der Datenträger ist voll") || strings.Contains(p, `id="transcript-retry"`) ||
		!strings.Contains(p, `id="transcript-retry-off"`) {
		t.Errorf("failed, no recogniser (German): %s", between(p, "<h2>", "<script>"))
	}
	e.update(func(st *store.Settings) {
		st.Appearance.Language = "en"
		st.Transcription.Recogniser, st.Transcription.URL = "http", recogniser.URL
	})
	save(store.Transcript{Status: "failed", Recogniser: "http", Error: "recogniser answered 503 Service Unavailable"})
	p := page()
	form := `<form method="post" action="/ui/recordings/` + id + `/transcript"><button type="submit" id="transcript-retry">Try again</button></form>`
	if !strings.Contains(p, "could not be made") || !strings.Contains(p, "recogniser answered 503 Service Unavailable") || !strings.Contains(p, form) {
		t.Fatalf("failed transcript's page: %s", between(p, "<h2>", "<script>"))
	}

	// The button's POST, as the browser sends it from the page: 303 back to
	// the page, which shows the transcript waiting, then made.
	req, err := http.NewRequest("POST", e.base+"/ui/recordings/"+id+"/transcript", strings.NewReader(""))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", e.base)
	cl := &http.Client{Transport: &contractTransport{t: t, base: http.DefaultTransport},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := cl.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != 303 || res.Header.Get("Location") != "/ui/recordings/"+id {
		t.Fatalf("Try again: %s, Location %q", res.Status, res.Header.Get("Location"))
	}
	select {
	case got := <-ddb.done:
		if got != id {
			t.Fatalf("transcript made of %s, want %s", got, id)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the transcript was not made again")
	}
	if p := page(); !strings.Contains(p, "please call me back") || strings.Contains(p, "transcript-retry") {
		t.Errorf("page after Try again: %s", between(p, "<h2>", "<script>"))
	}

	// A done transcript is not replaced from the page: the POST changes
	// nothing.
	r := e.post("/ui/recordings/"+id+"/transcript", "")
	if r.status != 200 || !strings.Contains(string(r.body), "please call me back") {
		t.Errorf("Try again of a done transcript: %d", r.status)
	}
	if got, err := e.db.GetTranscript(ctx, id); err != nil || got.Status != "done" {
		t.Errorf("done transcript after a POST: %+v %v", got, err)
	}
}

// runnerOf hands the API the runner made later in the test.
func runnerOf(r **sipua.Transcripts) Transcripts { return lateRunner{r} }

type lateRunner struct{ r **sipua.Transcripts }

func (l lateRunner) Retry(ctx context.Context, id string) error { return (*l.r).Retry(ctx, id) }

func between(s, from, to string) string {
	if i := strings.Index(s, from); i >= 0 {
		s = s[i:]
	}
	if i := strings.Index(s, to); i >= 0 {
		s = s[:i]
	}
	return s
}
