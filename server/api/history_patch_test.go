package api

import (
	"strings"
	"testing"
)

// TestRefusedHistoryPatchChangesNothing: PATCH /history/{id} with a note
// and a tag the taxonomy does not have (or has retired: a CRM's stale code)
// is refused 400 and changes nothing. The note was saved before the tags
// were refused, so the client, told its request was refused, had half of
// it kept.
func TestRefusedHistoryPatchChangesNothing(t *testing.T) {
	e := newEnv(t)
	s := e.seed()
	e.setToken()
	id := s.history[0].ID
	if r := do(t, "PATCH", e.base+"/history/"+id, `{"note":"before"}`, bearer(token)); r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if r := do(t, "PATCH", e.base+"/history/"+id, `{"note":"after","tags":["no-such-code"]}`, bearer(token)); r.status != 400 {
		t.Fatalf("unknown code: %d %s", r.status, r.body)
	}
	var h map[string]any
	e.get("/history/"+id).json(t, &h)
	if h["note"] != "before" {
		t.Errorf("the refused patch changed the note to %q", h["note"])
	}
}

// TestOverlongNoteRefused: a note over 4000 bytes is refused 400 with the
// limit in words, and with it the tags of the same request. The API took
// any note up to its 64 KiB body, and GET /history of a thousand such
// entries came to hundreds of megabytes; the page already had the limit.
func TestOverlongNoteRefused(t *testing.T) {
	e := newEnv(t)
	s := e.seed()
	e.setToken()
	id := s.history[0].ID
	if r := do(t, "PATCH", e.base+"/history/"+id, `{"note":"before"}`, bearer(token)); r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	long := strings.Repeat("ü", 2001) // 4002 bytes
	r := do(t, "PATCH", e.base+"/history/"+id, `{"note":"`+long+`","tags":[]}`, bearer(token))
	if r.status != 400 || !strings.Contains(string(r.body), "a note is at most 4000 bytes, this one has 4002") {
		t.Fatalf("a note of 4002 bytes: %d %s", r.status, r.body)
	}
	var h map[string]any
	e.get("/history/"+id).json(t, &h)
	if h["note"] != "before" {
		t.Errorf("the refused patch changed the note to %.40q", h["note"])
	}
	if r := do(t, "PATCH", e.base+"/history/"+id, `{"note":"`+strings.Repeat("ü", 2000)+`"}`, bearer(token)); r.status != 200 {
		t.Fatalf("a note of 4000 bytes: %d %.200s", r.status, r.body)
	}
}
