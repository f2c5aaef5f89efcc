package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/softphone/softphone/store"
)

// TestBarActionErrorsGoBesideTheBar: a failing action of the live-call bar
// (its controls send X-Softphone-Place: callbar, layout.templ) is answered
// into the bar's own alert region, in the page's language; the same error
// from elsewhere still goes to #flash at the top of the page.
func TestBarActionErrorsGoBesideTheBar(t *testing.T) {
	r := newRig(t, nil)
	r.login()
	page, body := r.do("GET", "/", nil, nil)
	if page.StatusCode != http.StatusOK || !strings.Contains(body, `id="callbar-msg"`) || !strings.Contains(body, `X-Softphone-Place`) {
		t.Fatalf("the page has no bar message region or marks no bar requests: %d", page.StatusCode)
	}
	bar := func(path string, v url.Values) (*http.Response, string) {
		return r.do("POST", path, strings.NewReader(v.Encode()), map[string]string{
			"Content-Type": "application/x-www-form-urlencoded", "Origin": r.origin, "Sec-Fetch-Site": "same-origin",
			"X-CSRF-Token": r.csrf, "HX-Request": "true", "X-Softphone-Place": "callbar"})
	}
	for _, action := range []string{"hangup", "hold", "dtmf", "transfer"} {
		res, body := bar("/calls/gone/"+action, url.Values{"digits": {"1"}, "target": {"carol"}})
		if res.StatusCode != http.StatusBadRequest || res.Header.Get("HX-Retarget") != "#callbar-msg" || !strings.Contains(body, "That call has ended.") {
			t.Errorf("%s: %d %q %q", action, res.StatusCode, res.Header.Get("HX-Retarget"), body)
		}
	}
	// Not from the bar: the top of the page, as before.
	if res, _ := r.form("/calls/gone/hangup", nil); res.Header.Get("HX-Retarget") != "#flash" {
		t.Errorf("not from the bar: %q", res.Header.Get("HX-Retarget"))
	}
	if _, err := r.st.Update(func(s *store.Settings) error { s.Appearance.Language = "de"; return nil }); err != nil {
		t.Fatal(err)
	}
	res, body := bar("/calls/gone/hold", nil)
	if res.Header.Get("HX-Retarget") != "#callbar-msg" || !strings.Contains(body, "Dieser Anruf ist schon beendet.") {
		t.Errorf("German: %q %q", res.Header.Get("HX-Retarget"), body)
	}
}
