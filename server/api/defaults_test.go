package api

import (
	"strings"

	"github.com/softphone/softphone/store"
	"testing"
)

// POST /accounts without transport or expiry takes the defaults (udp,
// 3600 s) before the check; a bad value names the request's own field.
func TestAccountRequestDefaults(t *testing.T) {
	e := newEnv(t)
	e.setToken()
	r := e.post("/accounts", `{"name":"Plain","username":"dave","domain":"pbx.test"}`, bearer(token))
	if r.status != 201 {
		t.Fatalf("create without transport: %d %s", r.status, r.body)
	}
	var a accountJSON
	r.json(t, &a)
	if a.Transport != "udp" || a.ExpiryS != 3600 || !a.Enabled {
		t.Errorf("defaults not filled: %+v", a)
	}
	if got := e.set.Get().Accounts[2]; got.Transport != "udp" || got.ExpiryS != 3600 {
		t.Errorf("saved %+v", got)
	}
	for _, c := range []struct{ method, path, body, want string }{
		{"POST", "/accounts", `{"username":"erin","domain":"pbx.test","transport":"sctp"}`, "transport must be one of udp, tcp, tls"},
		{"PUT", "/accounts/" + a.ID, `{"port":70000}`, "port must be 0-65535"},
		{"PUT", "/accounts/" + a.ID, `{"expiry_s":5,"domain":""}`, "expiry_s must be 30-86400 (or 0 for 3600); domain must be set for an enabled account"},
		{"PUT", "/accounts/" + a.ID, `{"port":"5060"}`, "port must be a number"},
	} {
		r := do(t, c.method, e.base+c.path, c.body, bearer(token))
		if r.status != 400 || r.errMsg(t) != c.want {
			t.Errorf("%s %s %s: %d %s, want 400 %q", c.method, c.path, c.body, r.status, r.body, c.want)
		}
	}
	if n := len(e.set.Get().Accounts); n != 3 {
		t.Errorf("%d accounts after refused requests, want 3", n)
	}
}

// PATCH /settings fills the same defaults before the check, a removed key
// (null) takes its default, errors name the key, and the RFC 7396 media
// type is accepted.
func TestSettingsPatchDefaults(t *testing.T) {
	e := newEnv(t)
	e.setToken()
	acc := `{"accounts":[{"id":"` + accountA + `","username":"alice","domain":"pbx.test","enabled":true},` +
		`{"id":"0b6a8f7e-1c2d-4e3f-9a0b-1c2d3e4f5a6b","username":"frank","domain":"pbx.test"},{"username":"gina","domain":"pbx.test"}]}`
	r := do(t, "PATCH", e.base+"/settings", acc, bearer(token))
	if r.status != 200 {
		t.Fatalf("patch with accounts lacking transport: %d %s", r.status, r.body)
	}
	accs := e.set.Get().Accounts
	for _, a := range accs {
		if a.Transport != "udp" || a.ExpiryS != 3600 || !isUUID(a.ID) {
			t.Errorf("account %q: transport %q expiry %d", a.ID, a.Transport, a.ExpiryS)
		}
	}
	if len(accs) != 3 || accs[2].Username != "gina" {
		t.Errorf("accounts %+v", accs)
	}
	r = do(t, "PATCH", e.base+"/settings", `{"appearance":{"theme":"dark"}}`, bearer(token), "Content-Type: application/merge-patch+json")
	if r.status != 200 || e.set.Get().Appearance.Theme != "dark" {
		t.Fatalf("merge-patch+json: %d %s", r.status, r.body)
	}
	r = do(t, "PATCH", e.base+"/settings", `{"appearance":{"theme":null}}`, bearer(token), "Content-Type: application/merge-patch+json; charset=utf-8")
	if r.status != 200 || e.set.Get().Appearance.Theme != "system" {
		t.Fatalf("null resets to the default: %d %s (theme %q)", r.status, r.body, e.set.Get().Appearance.Theme)
	}
	r = do(t, "PATCH", e.base+"/settings", `{"appearance":{"theme":"dark"}}`, bearer(token), "Content-Type: text/plain")
	if r.status != 415 || r.errMsg(t) != msgNotJSON {
		t.Errorf("text/plain: %d %s", r.status, r.body)
	}
	for _, c := range []struct{ body, want string }{
		{`{"api":{"port":0}}`, "api.port must be 1-65535"},
		{`{"accounts":[{"id":"` + accountA + `","transport":"sctp"}]}`, "accounts[0].transport must be one of udp, tcp, tls"},
		{`{"appearance":{"language":"xx"}}`, "appearance.language must be one of en, de"},
	} {
		r := do(t, "PATCH", e.base+"/settings", c.body, bearer(token))
		if r.status != 400 || r.errMsg(t) != c.want {
			t.Errorf("PATCH %s: %d %s, want 400 %q", c.body, r.status, r.body, c.want)
		}
	}
}

// A page of another origin may read the headers a client needs.
func TestCORSExposesHeaders(t *testing.T) {
	e := newEnv(t)
	// The page's origin is approved first (issue 12 item 7).
	e.update(func(s *store.Settings) { s.API.AllowedOrigins = []string{"http://crm.example"} })
	e.waitSettings(func(s *store.Settings) bool { return len(s.API.AllowedOrigins) == 1 })
	r := e.post("/calls", `{"number":"1"}`, "Origin: http://crm.example", "Idempotency-Key: k1")
	exposed := r.header.Get("Access-Control-Expose-Headers")
	for _, h := range []string{"Location", "Idempotent-Replayed", "Allow", "Content-Range"} {
		if !strings.Contains(exposed, h) {
			t.Errorf("Access-Control-Expose-Headers %q lacks %s", exposed, h)
		}
	}
	if r := e.post("/calls", `{"number":"1"}`); r.header.Get("Access-Control-Expose-Headers") != "" {
		t.Errorf("exposed headers without an Origin: %v", r.header)
	}
}
