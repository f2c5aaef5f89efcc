package api

import (
	"slices"
	"testing"
)

func historyOf(t *testing.T, e *env, query string) []map[string]any {
	t.Helper()
	r := e.get("/history" + query)
	if r.status != 200 {
		t.Fatalf("/history%s: %d %s", query, r.status, r.body)
	}
	var out []map[string]any
	r.json(t, &out)
	for i, h := range out {
		checkFields(t, "history", h, historyFields)
		if i > 0 && h["callstart_ts"].(float64) > out[i-1]["callstart_ts"].(float64) {
			t.Errorf("%s: not newest first at %d", query, i)
		}
	}
	return out
}

func outcomes(hs []map[string]any) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h["outcome"].(string))
	}
	return out
}

func TestHistoryOrderLimitAndFilters(t *testing.T) {
	e := newEnv(t)
	s := e.seed()
	all := historyOf(t, e, "")
	// Seeded oldest first: answered, missed, declined(here), failed, answered, declined(other side).
	if got := outcomes(all); !slices.Equal(got, []string{"declined", "answered", "failed", "declined", "missed", "answered"}) {
		t.Fatalf("outcomes %v", got)
	}
	if all[0]["id"] != s.history[0].ID {
		t.Errorf("first entry %v", all[0]["id"])
	}
	first := all[len(all)-1]
	if first["duration_s"] != 25.0 || first["answered"] != true || first["answered_by"] != "no" ||
		first["reason"] != "remote-hangup" || first["account_id"] != accountA || first["account"] != "alice@pbx.test" {
		t.Errorf("entry %v", first)
	}
	if tags := first["tags"].([]any); len(tags) != 2 {
		t.Errorf("tags %v", tags)
	}
	if all[1]["duration_s"] != 25.0 || all[2]["duration_s"] != 0.0 {
		t.Errorf("durations %v %v", all[1]["duration_s"], all[2]["duration_s"])
	}
	if got := historyOf(t, e, "?limit=2"); len(got) != 2 || got[0]["id"] != all[0]["id"] || got[1]["id"] != all[1]["id"] {
		t.Errorf("limit=2: %v", outcomes(got))
	}
	if got := outcomes(historyOf(t, e, "?missed=true")); !slices.Equal(got, []string{"missed"}) {
		t.Errorf("missed: %v", got)
	}
	// declined=true: only calls this phone declined (not the one the other side declined).
	declined := historyOf(t, e, "?declined=true")
	if len(declined) != 1 || declined[0]["number"] != "+493012" {
		t.Errorf("declined: %v", declined)
	}
	if got := outcomes(historyOf(t, e, "?missed=true&declined=true")); !slices.Equal(got, []string{"declined", "missed"}) {
		t.Errorf("missed+declined: %v", got)
	}
	if got := historyOf(t, e, "?missed=false&limit=1000"); len(got) != 6 {
		t.Errorf("missed=false: %d", len(got))
	}
	// A call in progress is not history yet.
	e.phone.ring("+4930999")
	r := e.get("/history/" + s.history[0].ID)
	if r.status != 200 {
		t.Fatalf("GET /history/{id}: %d", r.status)
	}
}

func TestHistoryNotesAndTags(t *testing.T) {
	e := newEnv(t)
	s := e.seed()
	e.setToken()
	id := s.history[0].ID
	r := do(t, "PATCH", e.base+"/history/"+id, `{"note":"called back","tags":["support","callback"]}`, bearer(token))
	if r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	var h map[string]any
	r.json(t, &h)
	if h["note"] != "called back" || len(h["tags"].([]any)) != 2 {
		t.Fatalf("entry %v", h)
	}
	r = do(t, "PATCH", e.base+"/history/"+id, `{"tags":["no-such-code"]}`, bearer(token))
	if r.status != 400 {
		t.Fatalf("unknown code: %d %s", r.status, r.body)
	}
	// Retired codes are refused for new tagging.
	if r := do(t, "POST", e.base+"/taxonomy/vip/retire", "", bearer(token)); r.status != 200 {
		t.Fatalf("retire: %d %s", r.status, r.body)
	}
	if r := do(t, "PATCH", e.base+"/history/"+id, `{"tags":["vip"]}`, bearer(token)); r.status != 400 {
		t.Fatalf("retired code: %d %s", r.status, r.body)
	}
	if r := do(t, "PATCH", e.base+"/history/"+id, `{"note":"x"}`); r.status != 405 {
		t.Fatalf("without token: %d", r.status)
	}
}
