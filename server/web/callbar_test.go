package web

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/sipua"
)

// The live-call bar echoes the DTMF the pages sent on a call (issue 16): the
// digits of a refused send are not shown, the page renders the call with its
// stable ids and its Hang up in the bar, and the morphing swap is asked for.
func TestCallBarEchoesSentDigits(t *testing.T) {
	r := newRig(t, nil)
	r.login()
	r.phone.mu.Lock()
	r.phone.calls = []sipua.Call{{ID: "c1", Number: "555", State: sipua.StateActive, Direction: sipua.DirOut, StateAt: time.Now()}}
	r.phone.mu.Unlock()
	for _, d := range []string{"1", "2", "#"} {
		if res, _ := r.form("/calls/c1/dtmf", url.Values{"digits": {d}}); res.StatusCode != 204 {
			t.Fatalf("dtmf %s: %d", d, res.StatusCode)
		}
	}
	if res, _ := r.form("/calls/gone/dtmf", url.Values{"digits": {"9"}}); res.StatusCode != 400 {
		t.Fatalf("dtmf on an unknown call: %d", res.StatusCode)
	}
	_, body := r.do("GET", "/settings", nil, nil)
	for _, want := range []string{`id="call-c1-sent"`, `<output>12#</output>`, `id="call-c1-hangup"`, `hx-swap="morph:innerHTML"`, `hx-ext="sse, morph"`, `/static/vendor/idiomorph-ext.min.js`} {
		if !strings.Contains(body, want) {
			t.Errorf("the settings page lacks %s", want)
		}
	}
	if got := r.srv.hub.sentOn("gone"); got != "" {
		t.Errorf("a refused digit is kept: %q", got)
	}
}
