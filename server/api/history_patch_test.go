package api

import "testing"

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
