package api

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/store"
)

// asked waits until the phone page would show a question about origin.
func asked(t *testing.T, e *env, changed <-chan struct{}, origin string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for !slices.Contains(e.srv.Approvals().Asks(), origin) {
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("no question about %s; asks %v", origin, e.srv.Approvals().Asks())
		}
	}
}

func watchAsks(e *env) <-chan struct{} {
	ch := make(chan struct{}, 16)
	e.srv.Approvals().OnChange(func() {
		select {
		case ch <- struct{}{}:
		default:
		}
	})
	return ch
}

// knock sends GET /history from origin in the background.
func knock(e *env, origin string) <-chan resp {
	out := make(chan resp, 1)
	go func() { out <- e.get("/history", "Origin: "+origin) }()
	return out
}

// An unknown origin's request waits for the person's answer; Allow lets it
// through, keeps the origin in api.allowed_origins, and later requests pass
// without a question.
func TestOriginAskedThenAllowed(t *testing.T) {
	e := newEnv(t)
	changed := watchAsks(e)
	const crm = "https://crm.example.com"
	res := knock(e, crm)
	asked(t, e, changed, crm)
	if err := e.srv.Approvals().Answer(crm, true); err != nil {
		t.Fatal(err)
	}
	r := <-res
	if r.status != 200 || r.header.Get("Access-Control-Allow-Origin") != crm {
		t.Fatalf("after Allow: %d %s %v", r.status, r.body, r.header)
	}
	if !slices.Contains(e.set.Get().API.AllowedOrigins, crm) {
		t.Fatalf("allowed_origins %v", e.set.Get().API.AllowedOrigins)
	}
	if r := e.get("/history", "Origin: "+crm); r.status != 200 || len(e.srv.Approvals().Asks()) != 0 {
		t.Fatalf("approved origin again: %d, asks %v", r.status, e.srv.Approvals().Asks())
	}
	// The preflight of the approved origin passes too.
	if r := do(t, "OPTIONS", e.base+"/calls", "", "Origin: "+crm, "Access-Control-Request-Method: POST"); r.status != 204 {
		t.Fatalf("preflight of the approved origin: %d", r.status)
	}
	// Answering again (another tab) is an error, not a second entry.
	if err := e.srv.Approvals().Answer(crm, true); err == nil {
		t.Fatal("a second answer was taken")
	}
}

// Deny: 403 with the message, the origin is refused at once from then on
// (no new question), and every refusal is counted.
func TestOriginDenied(t *testing.T) {
	e := newEnv(t)
	changed := watchAsks(e)
	const evil = "http://evil.example:8080"
	refused := e.counter("api_requests_refused_total")
	res := knock(e, evil)
	asked(t, e, changed, evil)
	before := len(e.phone.Commands())
	if err := e.srv.Approvals().Answer(evil, false); err != nil {
		t.Fatal(err)
	}
	r := <-res
	if r.status != 403 || r.errMsg(t) != msgWrongOrigin {
		t.Fatalf("after Deny: %d %s", r.status, r.body)
	}
	// The page may read why: the refusal carries its origin.
	if r.header.Get("Access-Control-Allow-Origin") != evil {
		t.Errorf("403 without Access-Control-Allow-Origin: %v", r.header)
	}
	r = e.post("/calls", `{"number":"1"}`, "Origin: "+evil)
	if r.status != 403 || len(e.srv.Approvals().Asks()) != 0 || len(e.phone.Commands()) != before {
		t.Fatalf("denied origin again: %d, asks %v, commands %v", r.status, e.srv.Approvals().Asks(), e.phone.Commands())
	}
	if got := e.counter("api_requests_refused_total") - refused; got != 2 {
		t.Errorf("refused counted %v times, want 2", got)
	}
	if slices.Contains(e.set.Get().API.AllowedOrigins, evil) {
		t.Error("denied origin kept as allowed")
	}
}

// Without an answer within the wait, 403; the question stays on the page,
// and a late Allow lets the next request through.
func TestOriginTimeoutThenLateAllow(t *testing.T) {
	e := newEnvCfg(t, func(c *Config) { c.AskWait = 200 * time.Millisecond })
	const crm = "http://localhost:3000"
	r := e.get("/history", "Origin: "+crm)
	if r.status != 403 || r.errMsg(t) != msgWrongOrigin {
		t.Fatalf("unanswered: %d %s", r.status, r.body)
	}
	if !slices.Contains(e.srv.Approvals().Asks(), crm) {
		t.Fatalf("question gone after the timeout: %v", e.srv.Approvals().Asks())
	}
	if err := e.srv.Approvals().Answer(crm, true); err != nil {
		t.Fatal(err)
	}
	if r := e.get("/history", "Origin: "+crm); r.status != 200 {
		t.Fatalf("after a late Allow: %d %s", r.status, r.body)
	}
}

// Remove on the Integration tab takes the origin out of api.allowed_origins:
// the next knock is a question again, refused without a yes.
func TestOriginRemovedIsAskedAgain(t *testing.T) {
	const crm = "https://crm.example.com"
	e := newEnvCfg(t, func(c *Config) { c.AskWait = 200 * time.Millisecond },
		func(s *store.Settings) { s.API.AllowedOrigins = []string{crm} })
	if r := e.get("/history", "Origin: "+crm); r.status != 200 {
		t.Fatalf("approved: %d", r.status)
	}
	e.update(func(s *store.Settings) { s.API.AllowedOrigins = []string{} })
	e.waitSettings(func(s *store.Settings) bool { return len(s.API.AllowedOrigins) == 0 })
	if r := e.get("/history", "Origin: "+crm); r.status != 403 || !slices.Contains(e.srv.Approvals().Asks(), crm) {
		t.Fatalf("removed origin: %d, asks %v", r.status, e.srv.Approvals().Asks())
	}
}

// Origins that cannot be kept are refused at once and never asked about;
// the question box holds at most maxAsks; programs without Origin are not
// asked at all.
func TestOriginBounds(t *testing.T) {
	e := newEnvCfg(t, func(c *Config) { c.AskWait = 100 * time.Millisecond })
	for _, o := range []string{"null", "file://", "chrome-extension://abcdef", "http://a b", "http://crm.example/path",
		"http://user@crm.example", "javascript:alert(1)", "http://" + strings.Repeat("a", 400) + ".example"} {
		start := time.Now()
		if r := e.get("/history", "Origin: "+o); r.status != 403 {
			t.Errorf("origin %q: %d", o, r.status)
		}
		if time.Since(start) >= 100*time.Millisecond {
			t.Errorf("origin %q waited for an answer", o)
		}
	}
	if n := len(e.srv.Approvals().Asks()); n != 0 {
		t.Fatalf("malformed origins asked about: %v", e.srv.Approvals().Asks())
	}
	for i := 0; i < maxAsks+3; i++ {
		e.get("/history", "Origin: http://sub"+strconv.Itoa(i)+".evil.example")
	}
	asks := e.srv.Approvals().Asks()
	if len(asks) != maxAsks || asks[0] != "http://sub0.evil.example" || asks[maxAsks-1] != "http://sub"+strconv.Itoa(maxAsks-1)+".evil.example" {
		t.Fatalf("questions %v, want the first %d", asks, maxAsks)
	}
	if r := e.get("/history"); r.status != 200 {
		t.Fatalf("a program without Origin: %d", r.status)
	}
}
