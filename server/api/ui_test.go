package api

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestRecordingPages(t *testing.T) {
	e := newEnv(t)
	s := e.seed()
	id := s.recording.ID

	r := e.get("/ui")
	page := string(r.body)
	if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") {
		t.Fatalf("/ui: %d %s", r.status, r.header.Get("Content-Type"))
	}
	for _, want := range []string{`href="/ui/recordings/` + id + `"`, "+493010", "Ada Lovelace", "0:25", "answered",
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
		"&lt;b&gt;really&lt;/b&gt;", "player.currentTime = parseFloat(line.dataset.start)"} {
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
