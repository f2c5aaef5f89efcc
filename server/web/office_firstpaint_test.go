package web

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/store"
)

// officeSpan is the header's office part as a page renders it.
var officeSpan = regexp.MustCompile(`(?s)<span class="office" sse-swap="office">(.*?)</span>\s*<label class="theme-switch">`)

// TestOfficeHeaderFirstPaint: every page's header shows the presence choice
// at its first paint, as the live stream's first state sends it; left to
// the stream, the header grew when that state came, and at 360 px the whole
// page under it moved (callbar.mjs, "nothing moves when the bar appears").
func TestOfficeHeaderFirstPaint(t *testing.T) {
	r := newRig(t, nil)
	r.login()
	for _, path := range []string{"/", "/settings"} {
		_, body := r.do("GET", path, nil, nil)
		m := officeSpan.FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("%s: no office part in the header", path)
		}
		if !strings.Contains(m[1], `name="status"`) || !strings.Contains(m[1], `value="available" selected`) {
			t.Fatalf("%s: the header's office part is empty at the first paint: %q", path, m[1])
		}
	}
}

// lampsDiv is the colleagues panel as a page renders it.
var lampsDiv = regexp.MustCompile(`(?s)<div id="lamps" sse-swap="lamps" aria-live="polite">(.*?)</div>`)

// TestLampsFirstPaint: the phone page and the contacts page show the
// watched contacts with their line at the first paint, in the page's
// language; left to the event stream, the panel stayed empty until its
// first update, and grew when it came.
func TestLampsFirstPaint(t *testing.T) {
	r, _ := storeRig(t)
	for _, path := range []string{"/", "/contacts"} {
		_, body := r.do("GET", path, nil, nil)
		if m := lampsDiv.FindStringSubmatch(body); m == nil || !strings.Contains(m[1], "No watched contacts") {
			t.Fatalf("%s: no words for an empty panel at the first paint: %v", path, m)
		}
	}
	if res, _ := r.form("/contacts", url.Values{"name": {"Bob"}, "number": {"201"}, "watch": {"on"}}); res.StatusCode != http.StatusNoContent {
		t.Fatalf("create: %d", res.StatusCode)
	}
	_, list := r.do("GET", "/contacts", nil, nil)
	id := regexp.MustCompile(`data-contact-id="([^"]+)"`).FindStringSubmatch(list)
	if id == nil {
		t.Fatalf("no watched contact in the panel:\n%s", list)
	}
	r.phone.mu.Lock()
	r.phone.lamps()[id[1]] = sipua.ContactState{LineState: sipua.LineRinging, Presence: sipua.PresenceAway}
	r.phone.mu.Unlock()
	if _, err := r.st.Update(func(s *store.Settings) error { s.Appearance.Language = "de"; return nil }); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/", "/contacts"} {
		_, body := r.do("GET", path, nil, nil)
		m := lampsDiv.FindStringSubmatch(body)
		if m == nil || !strings.Contains(m[1], "<strong>Bob</strong>") || !strings.Contains(m[1], `data-line="ringing"`) ||
			!strings.Contains(m[1], "/contacts/"+id[1]+"/pickup") || !strings.Contains(m[1], "abwesend") || !strings.Contains(m[1], "klingelt") {
			t.Errorf("%s: the panel at the first paint: %v", path, m)
		}
	}
}
