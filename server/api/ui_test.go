package api

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/softphone/softphone/store"
)

func TestRecordingPages(t *testing.T) {
	e := newEnv(t)
	s := e.seed()
	id := s.recording.ID
	first := s.history[len(s.history)-1]

	// The history names the recording, and the recording page links back.
	var h historyJSON
	e.get("/history/"+first.ID).json(t, &h)
	if h.RecordingID != id {
		t.Errorf("GET /history/{id}: recording_id %q, want %q", h.RecordingID, id)
	}
	var list []historyJSON
	e.get("/history").json(t, &list)
	if len(list) != 6 || list[5].RecordingID != id || list[0].RecordingID != "" {
		t.Errorf("GET /history: recording ids %q ... %q", list[0].RecordingID, list[len(list)-1].RecordingID)
	}

	r := e.get("/ui")
	page := string(r.body)
	if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") {
		t.Fatalf("/ui: %d %s", r.status, r.header.Get("Content-Type"))
	}
	// Party, direction, time and length: the party from the call's history
	// entry (the recorder does not know it).
	for _, want := range []string{`href="/ui/recordings/` + id + `"`, `<td class="number">+493010</td>`,
		`<td class="name">Ada Lovelace</td>`, `<td class="direction">Incoming</td>`, `datetime="2026-11-02T09:00:00Z"`, "0:25", "answered",
		`<span class="chip">Sales</span>`, `class="chip flag"`} {
		if !strings.Contains(page, want) {
			t.Errorf("/ui lacks %q", want)
		}
	}

	r = e.get("/ui/recordings/" + id)
	page = string(r.body)
	if r.status != 200 {
		t.Fatalf("recording page: %d", r.status)
	}
	for _, want := range []string{`<audio id="player"`, `src="/ui/recordings/` + id + `/audio"`, `type="audio/wav"`,
		`data-start="0.500"`, `data-start="3.200"`, "Other party", "Me", "cancel my contract",
		"&lt;b&gt;really&lt;/b&gt;", "player.currentTime = parseFloat(line.dataset.start)",
		`<a id="history-entry" href="/history/` + first.ID + `"`, `<span class="direction">Incoming</span>`} {
		if !strings.Contains(page, want) {
			t.Errorf("recording page lacks %q", want)
		}
	}

	// The audio, whole and in ranges (the player seeks with Range requests).
	r = e.get("/ui/recordings/" + id + "/audio")
	if r.status != 200 || len(r.body) != s.audioLen || r.header.Get("Content-Type") != "audio/wav" ||
		r.header.Get("Accept-Ranges") != "bytes" {
		t.Fatalf("audio: %d %d bytes %v", r.status, len(r.body), r.header)
	}
	r = e.get("/ui/recordings/"+id+"/audio", "Range: bytes=100-199")
	if r.status != 206 || len(r.body) != 100 || r.header.Get("Content-Range") != "bytes 100-199/"+strconv.Itoa(s.audioLen) {
		t.Fatalf("range: %d %d %v", r.status, len(r.body), r.header)
	}
	r = e.get("/ui/recordings/"+id+"/audio", "Range: bytes=99999999-")
	if r.status != 416 || r.errMsg(t) != msgBadRange || r.header.Get("Content-Type") != "application/json" ||
		r.header.Get("Content-Range") != "bytes */"+strconv.Itoa(s.audioLen) {
		t.Errorf("range past the end: %d %v %s", r.status, r.header, r.body)
	}

	// Conditional headers are ignored: no 304 or 412 the document does not have.
	if r := e.get("/ui/recordings/"+id+"/audio", "If-Modified-Since: "+time.Now().Add(time.Hour).UTC().Format(http.TimeFormat),
		"If-Match: \"nope\""); r.status != 200 || len(r.body) != s.audioLen {
		t.Errorf("conditional request: %d %d bytes", r.status, len(r.body))
	}

	// Deleting needs the token, removes row and file.
	if r := do(t, "DELETE", e.base+"/ui/recordings/"+id, ""); r.status != 405 {
		t.Errorf("delete without token: %d", r.status)
	}
	e.setToken()
	if r := do(t, "DELETE", e.base+"/ui/recordings/"+id, "", bearer(token)); r.status != 204 {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	if _, err := os.Stat(filepath.Join(e.home, "recordings", id+".wav")); !os.IsNotExist(err) {
		t.Errorf("audio file kept: %v", err)
	}
	if r := e.get("/ui/recordings/" + id); r.status != 404 || r.errMsg(t) != msgNoRecording {
		t.Errorf("after delete: %d %s", r.status, r.body)
	}
	if r := e.get("/ui"); !strings.Contains(string(r.body), "No recordings yet.") {
		t.Errorf("list after delete: %s", r.body)
	}
}

func TestAudioPathStaysInRecordings(t *testing.T) {
	s := &Server{cfg: Config{Home: "/home/u/.softphone"}}
	for path, ok := range map[string]bool{
		"recordings/a.wav":                    true,
		"recordings/sub/a.wav":                true,
		"/home/u/.softphone/recordings/a.wav": true,
		"../../etc/passwd":                    false,
		"recordings/../softphone.db":          false,
		"recordings":                          false,
		"/etc/passwd":                         false,
		"recordings/../../.softphone/x":       false,
	} {
		_, got := s.audioPath(storeRecording(path))
		if got != ok {
			t.Errorf("%s: %v, want %v", path, got, ok)
		}
	}
}

// TestRecordingPagesOfOldCalls: a recording whose call has 1,000 newer
// calls in the history still shows its party, outcome and tags on both
// recordings pages. They looked for the call among the newest 1,000
// entries and showed an empty row past them.
func TestRecordingPagesOfOldCalls(t *testing.T) {
	e := newEnv(t)
	s := e.seed()
	id := s.recording.ID
	ctx := context.Background()
	var ws []store.HistoryWrite
	for i := range historyMax {
		start := time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute)
		h := store.HistoryEntry{CallID: uuid.NewString(), SeanceID: uuid.NewString(), AccountID: accountA, Direction: "out",
			Number: "+4940" + itoa(i), Outcome: "failed", Reason: "remote-hangup", AnsweredBy: "no", StartedAt: start, EndedAt: start.Add(time.Second)}
		ws = append(ws, store.HistoryWrite{Kind: store.HistoryStart, Entry: h}, store.HistoryWrite{Kind: store.HistoryFinish, Entry: h})
	}
	for i, err := range e.db.WriteHistory(ctx, ws) {
		if err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	for _, path := range []string{"/ui", "/ui/recordings/" + id} {
		r := e.get(path)
		if r.status != 200 {
			t.Fatalf("%s: %d", path, r.status)
		}
		for _, want := range []string{"+493010", "Ada Lovelace", "answered", `<span class="chip">Sales</span>`} {
			if !strings.Contains(string(r.body), want) {
				t.Errorf("%s lacks %q", path, want)
			}
		}
	}
}
