package api

import (
	"strings"
	"testing"
)

// TestPagesCannotBeFramed: the API's HTML pages (the recordings list, a
// recording with its transcript, the index for browsers) tell the browser
// that no other site may frame them, as the phone pages do; they were
// framable by any page on the web.
func TestPagesCannotBeFramed(t *testing.T) {
	e := newEnv(t)
	s := e.seed()
	for _, path := range []string{"/ui", "/ui/recordings/" + s.recording.ID, "/"} {
		r := e.get(path, "Accept: text/html")
		if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") {
			t.Fatalf("%s: %d %s", path, r.status, r.header.Get("Content-Type"))
		}
		if r.header.Get("X-Frame-Options") != "DENY" || r.header.Get("Content-Security-Policy") != "frame-ancestors 'none'" ||
			r.header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: framing headers %v", path, r.header)
		}
	}
}
