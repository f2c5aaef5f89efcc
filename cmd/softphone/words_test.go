package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/internal/testpeer"
)

// get reads one page of the logged-in phone.
func (pc *pageClient) get(t *testing.T, path string) string {
	t.Helper()
	resp, err := pc.c.Get(pc.origin + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// TestUnknownUserSaysNoSuchNumber calls a user kamailio does not know: it
// answers 404, and the phone page's card of the ended call and the History
// say "No such number" with "SIP 404" in small print (issue 16 item 3), not
// a bare "failed".
func TestUnknownUserSaysNoSuchNumber(t *testing.T) {
	r := newRig(t)
	p := r.start(t)
	page := loginPage(t, p.URL)

	code, out := postJSON(t, r.api+"/calls", map[string]string{"number": "nosuchuser"})
	if code != http.StatusOK && code != http.StatusCreated {
		t.Fatalf("POST /calls: %d %v", code, out)
	}
	id, _ := out["id"].(string)
	card := `data-ended-call-id="` + id + `"`
	var body string
	if !testpeer.WaitFor(15*time.Second, func() bool {
		body = page.get(t, "/")
		return strings.Contains(body, card)
	}) {
		t.Fatalf("no card of the ended call on the phone page:\n%s", p.Output())
	}
	i := strings.Index(body, card)
	cardHTML := body[i:min(len(body), i+1500)]
	for _, want := range []string{`data-why="why.notfound"`, "No such number", `<small class="sip-status">SIP 404</small>`} {
		if !strings.Contains(cardHTML, want) {
			t.Errorf("card lacks %q: %s", want, cardHTML)
		}
	}
	var hist []map[string]any
	if err := testpeer.GetJSON(r.api+"/history?limit=1", &hist); err != nil || len(hist) != 1 || hist[0]["outcome"] != "failed" {
		t.Fatalf("API history: %v %v", err, hist)
	}
	h := page.get(t, "/history")
	for _, want := range []string{`data-why="why.notfound"`, "No such number", "SIP 404"} {
		if !strings.Contains(h, want) {
			t.Errorf("History lacks %q", want)
		}
	}
	if strings.Contains(h, "Ended by") {
		t.Errorf("History shows a raw reason")
	}
	p.stop(t)
}
