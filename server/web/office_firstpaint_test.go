package web

import (
	"regexp"
	"strings"
	"testing"
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
