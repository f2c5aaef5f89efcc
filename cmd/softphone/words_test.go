package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
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
// a bare "failed". Then a number in national form finds the contact saved
// in international form (sip.default_region DE): the API's history names it.
func TestUnknownUserSaysNoSuchNumber(t *testing.T) {
	r := newRig(t)
	// sip.default_region DE and a contact saved as +49 30 1234567, before the start.
	b, err := os.ReadFile(filepath.Join(r.home, "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	st["sip"].(map[string]any)["default_region"] = "DE"
	writeSettings(t, r.home, st)
	db, err := store.OpenDB(filepath.Join(r.home, "softphone.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateContact(context.Background(), store.Contact{Name: "Ada Lovelace", Number: "+49 30 1234567"}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
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
	// The history entry is written a moment after the call ends.
	var hist []map[string]any
	if !testpeer.WaitFor(15*time.Second, func() bool {
		return testpeer.GetJSON(r.api+"/history?limit=1", &hist) == nil && len(hist) == 1 && hist[0]["outcome"] == "failed"
	}) {
		t.Fatalf("API history: %v", hist)
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

	// The same contact whatever the number's format: the API's name.
	code, out = postJSON(t, r.api+"/calls", map[string]string{"number": "030 1234567"})
	if code != http.StatusOK && code != http.StatusCreated {
		t.Fatalf("POST /calls 030 1234567: %d %v", code, out)
	}
	id2, _ := out["id"].(string)
	var named map[string]any
	if !testpeer.WaitFor(15*time.Second, func() bool {
		var hs []map[string]any
		if testpeer.GetJSON(r.api+"/history?limit=5", &hs) != nil {
			return false
		}
		for _, e := range hs {
			if e["seance_id"] != nil && e["outcome"] == "failed" && e["number"] == "0301234567" {
				named = e
				return true
			}
		}
		return false
	}) {
		t.Fatalf("no history entry of the call %s to 030 1234567:\n%s", id2, p.Output())
	}
	if named["name"] != "Ada Lovelace" {
		t.Errorf("API history name of 030 1234567 = %v, want the contact saved as +49 30 1234567", named["name"])
	}
	p.stop(t)
}
