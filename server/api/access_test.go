package api

import (
	"context"
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/softphone/softphone/store"
)

func listingPaths(t *testing.T, r resp) []string {
	t.Helper()
	var l struct {
		Endpoints []listingEntry `json:"endpoints"`
	}
	r.json(t, &l)
	var out []string
	for _, x := range l.Endpoints {
		out = append(out, x.Method+" "+x.Path)
		if x.Method == "GET" && !strings.Contains(x.Path, "{") && x.Href == "" {
			t.Errorf("reading entry %s has no link", x.Path)
		}
		if x.Href != "" && !strings.HasPrefix(x.Href, "http://127.0.0.1:") {
			t.Errorf("link %s", x.Href)
		}
	}
	return out
}

// The token matrix: none, wrong, right; reading, controlling calls, writing
// stored data; the listing with and without.
func TestTokenMatrix(t *testing.T) {
	e := newEnv(t)
	e.seed()

	// No token configured: reads and call control work, writes do not exist,
	// any Authorization is a wrong token.
	if r := e.get("/contacts"); r.status != 200 {
		t.Fatalf("read without token: %d", r.status)
	}
	if r := e.post("/contacts", `{"number":"1"}`, bearer("anything")); r.status != 401 || r.errMsg(t) != "wrong token" {
		t.Fatalf("token while none set: %d %s", r.status, r.body)
	}
	noTok := listingPaths(t, e.get("/"))
	if slices.Contains(noTok, "POST /contacts") || slices.Contains(noTok, "PATCH /settings") {
		t.Fatalf("token-only entries listed without token: %v", noTok)
	}
	if !slices.Contains(noTok, "POST /calls") || !slices.Contains(noTok, "POST /calls/{id}/hangup") {
		t.Fatalf("call control not listed without token: %v", noTok)
	}

	e.setToken()
	refused := e.counter("api_requests_refused_total")
	cases := []struct {
		name         string
		method, path string
		body         string
		hdr          []string
		status       int
	}{
		{"read none", "GET", "/contacts", "", nil, 200},
		{"read wrong", "GET", "/contacts", "", []string{bearer("wrong")}, 401},
		{"read right", "GET", "/contacts", "", []string{bearer(token)}, 200},
		{"dial none", "POST", "/calls", `{"number":"200"}`, nil, 201},
		{"dial wrong", "POST", "/calls", `{"number":"200"}`, []string{bearer("wrong")}, 401},
		{"dial right", "POST", "/calls", `{"number":"200"}`, []string{bearer(token)}, 201},
		{"write none", "POST", "/contacts", `{"number":"1"}`, nil, 405},
		{"write wrong", "POST", "/contacts", `{"number":"1"}`, []string{bearer("wrong")}, 401},
		{"write right", "POST", "/contacts", `{"number":"1","name":"N"}`, []string{bearer(token)}, 201},
		{"write lowercase scheme", "POST", "/contacts", `{"number":"2"}`, []string{"Authorization: bearer " + token}, 201},
		{"webhook none", "POST", "/webhooks/test", "", nil, 404},
		{"webhook right", "POST", "/webhooks/test", "", []string{bearer(token)}, 200},
		{"token prefix", "GET", "/contacts", "", []string{bearer(token[:5])}, 401},
		{"token longer", "GET", "/contacts", "", []string{bearer(token + "x")}, 401},
	}
	wantRefused := refused
	for _, c := range cases {
		r := do(t, c.method, e.base+c.path, c.body, c.hdr...)
		if r.status != c.status {
			t.Errorf("%s: %d, want %d (%s)", c.name, r.status, c.status, r.body)
		}
		if c.status == 401 && r.errMsg(t) != "wrong token" {
			t.Errorf("%s: %s", c.name, r.body)
		}
		if c.status >= 400 {
			wantRefused++
		}
	}
	if got := e.counter("api_requests_refused_total"); got != wantRefused {
		t.Errorf("refused counter %v, want %v", got, wantRefused)
	}
	if e.hooks != 1 {
		t.Errorf("webhook test sent %d times", e.hooks)
	}
	withTok := listingPaths(t, e.get("/", bearer(token)))
	for _, p := range []string{"POST /contacts", "PUT /contacts/{id}", "DELETE /contacts/{id}", "PATCH /history/{id}",
		"POST /taxonomy", "PUT /taxonomy/{code}", "POST /taxonomy/{code}/retire", "PATCH /settings", "POST /accounts",
		"PUT /accounts/{id}", "DELETE /accounts/{id}", "DELETE /ui/recordings/{id}", "POST /webhooks/test"} {
		if !slices.Contains(withTok, p) {
			t.Errorf("%s not listed with the token", p)
		}
		if slices.Contains(noTok, p) {
			t.Errorf("%s listed without the token", p)
		}
	}
	if r := e.get("/", bearer("wrong")); r.status != 401 {
		t.Errorf("listing with a wrong token: %d", r.status)
	}
}

// A group that is off answers exactly like a path that does not exist.
func TestGroupsOffLikeUnknownPaths(t *testing.T) {
	e := newEnv(t)
	e.setToken()
	unknown := e.get("/no/such/path")
	paths := map[string][]string{
		store.GroupContacts: {"/contacts", "/contacts/" + unknownUUID},
		store.GroupHistory:  {"/history", "/history/" + unknownUUID, "/taxonomy", "/ui", "/ui/recordings/" + unknownUUID, "/ui/recordings/" + unknownUUID + "/audio"},
		store.GroupCalls:    {"/calls", "/calls/" + unknownUUID, "/events"},
		store.GroupAccounts: {"/accounts", "/accounts/" + unknownUUID},
		store.GroupSettings: {"/settings"},
		store.GroupCounters: {"/metrics"},
	}
	// In the spec's order, so counters is the group left off at the end.
	for _, group := range store.AccessGroups {
		ps := paths[group]
		e.update(func(s *store.Settings) { s.API.Disabled = []string{group} })
		e.waitSettings(func(s *store.Settings) bool { return slices.Contains(s.API.Disabled, group) })
		listed := listingPaths(t, e.get("/", bearer(token)))
		for _, p := range ps {
			for _, hdr := range [][]string{nil, {bearer(token)}} {
				r := e.get(p, hdr...)
				if r.status != unknown.status || string(r.body) != string(unknown.body) ||
					r.header.Get("Content-Type") != unknown.header.Get("Content-Type") || r.header.Get("Allow") != "" {
					t.Errorf("group %s off: GET %s = %d %s, unknown path = %d %s", group, p, r.status, r.body, unknown.status, unknown.body)
				}
			}
			if slices.Contains(listed, "GET "+p) {
				t.Errorf("group %s off but %s listed", group, p)
			}
		}
		// Writes of the group vanish too.
		if group == store.GroupSettings {
			r := do(t, "PATCH", e.base+"/settings", `{}`, bearer(token))
			if r.status != 404 || r.errMsg(t) != msgNoEndpoint {
				t.Errorf("PATCH /settings with group off: %d %s", r.status, r.body)
			}
		}
		if group == store.GroupCalls {
			r := e.post("/calls", `{"number":"1"}`)
			if r.status != 404 || len(e.phone.Commands()) != 0 {
				t.Errorf("POST /calls with calls off: %d, commands %v", r.status, e.phone.Commands())
			}
		}
	}
	// The root, the description and the other groups stay.
	if r := e.get("/"); r.status != 200 {
		t.Errorf("/ %d", r.status)
	}
	if r := e.get("/calls"); r.status != 200 {
		t.Errorf("/calls with counters off: %d", r.status)
	}
}

// waitSettings polls until the API has seen the settings (Watch runs its
// callback on a goroutine of its own and nothing tells when it ran).
func (e *env) waitSettings(ok func(*store.Settings) bool) {
	e.t.Helper()
	waitFor(e.t, func() bool { return ok(e.srv.cur.Load()) })
}

func TestHostRebindingRefusedAndCounted(t *testing.T) {
	e := newEnv(t)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(e.base, "http://"))
	before := e.counter("api_requests_refused_total")
	for _, h := range []string{"evil.example:" + port, "127.0.0.1.nip.io:" + port, "192.168.1.10:" + port, "127.0.0.1", "localhost:1" + port, "localhost.:" + port} {
		r := e.get("/accounts", "Host: "+h)
		if r.status != 403 || r.errMsg(t) != msgWrongHost {
			t.Errorf("Host %s: %d %s", h, r.status, r.body)
		}
	}
	for _, h := range []string{"127.0.0.1:" + port, "localhost:" + port, "LOCALHOST:" + port, "[::1]:" + port} {
		if r := e.get("/accounts", "Host: "+h); r.status != 200 {
			t.Errorf("Host %s: %d %s", h, r.status, r.body)
		}
	}
	// X-Forwarded-Host is not trusted.
	if r := e.get("/accounts", "Host: evil.example:"+port, "X-Forwarded-Host: 127.0.0.1:"+port); r.status != 403 {
		t.Errorf("X-Forwarded-Host trusted: %d", r.status)
	}
	if got := e.counter("api_requests_refused_total") - before; got != 7 {
		t.Errorf("refused rose by %v, want 7", got)
	}
}

// The listener is bound to 127.0.0.1 only: another loopback address of the
// same machine (in the test's namespace) does not answer.
func TestBindsOnly127001(t *testing.T) {
	e := newEnv(t)
	host, port, _ := net.SplitHostPort(e.srv.Addr())
	if host != "127.0.0.1" {
		t.Fatalf("bound to %s", host)
	}
	for _, other := range []string{"127.0.0.2", "[::1]"} {
		if c, err := net.Dial("tcp", other+":"+port); err == nil {
			c.Close()
			t.Errorf("%s:%s answers", other, port)
		}
	}
}

func TestCountersRise(t *testing.T) {
	e := newEnv(t)
	total, refused := e.counter("api_requests_total"), e.counter("api_requests_refused_total")
	e.get("/accounts")
	e.get("/nope")
	e.get("/accounts", bearer("x"))
	e.post("/calls/"+unknownUUID+"/hangup", "")
	if d := e.counter("api_requests_total") - total; d != 4 {
		t.Errorf("api_requests_total rose by %v, want 4", d)
	}
	if d := e.counter("api_requests_refused_total") - refused; d != 3 {
		t.Errorf("api_requests_refused_total rose by %v, want 3", d)
	}
	// /metrics shows them (scraping counts itself first: the value includes it).
	m := string(e.get("/metrics").body)
	if !strings.Contains(m, "api_requests_refused_total 3") || !strings.Contains(m, "# HELP api_requests_total") {
		t.Errorf("metrics: %s", m)
	}
}

// Calls placed and controlled through the API show in /metrics (the
// counters follow the bus, as in the binary).
func TestCallCountersThroughAPI(t *testing.T) {
	e := newEnv(t)
	sub := e.bus.Subscribe(64, true)
	ctx, cancel := context.WithCancel(context.Background())
	go e.met.Consume(ctx, sub)
	t.Cleanup(func() { cancel(); sub.Close() })

	var nc struct{ ID string }
	e.post("/calls", `{"number":"100"}`).json(t, &nc)
	e.post("/calls/"+nc.ID+"/hangup", "")
	in := e.phone.ring("200")
	e.post("/calls/"+in.ID+"/answer", "")
	e.post("/calls/"+in.ID+"/hold", "")
	e.post("/calls/"+in.ID+"/resume", "")
	e.post("/calls/"+in.ID+"/hangup", "")
	want := []string{"calls_outgoing_total 1", "calls_incoming_total 1", "calls_answered_total 1", "calls_missed_total 1"}
	waitFor(t, func() bool {
		m := string(e.get("/metrics").body)
		for _, w := range want {
			if !strings.Contains(m, "\n"+w+"\n") {
				return false
			}
		}
		return true
	})
}

// A browser gets the listing as a page with links; a program gets JSON.
func TestListingForBrowsers(t *testing.T) {
	e := newEnv(t)
	r := e.get("/", "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
	page := string(r.body)
	if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") {
		t.Fatalf("%d %s", r.status, r.header.Get("Content-Type"))
	}
	for _, want := range []string{`<a href="` + e.base + `/accounts"><code>/accounts</code></a>`, `<code>/calls/{id}/hangup</code>`, "Calls in progress.", `href="` + e.base + `/openapi.json"`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if strings.Contains(page, "/webhooks/test") {
		t.Error("token-only entry on the page without a token")
	}
	for _, accept := range []string{"", "*/*", "application/json"} {
		if r := e.get("/", "Accept: "+accept); !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
			t.Errorf("Accept %q: %s", accept, r.header.Get("Content-Type"))
		}
	}
}
