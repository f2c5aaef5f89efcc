package web

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/store"
)

// testPhone stands in for *sipua.Phone (the real one needs a PBX; its own
// package tests it against kamailio): it records the commands it gets.
type testPhone struct {
	mu       sync.Mutex
	calls    []sipua.Call
	accounts []AccountStatus
	did      []string
}

func (p *testPhone) note(s string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.did = append(p.did, s)
	if strings.Contains(s, "gone") {
		return sipua.ErrNoCall
	}
	return nil
}

func (p *testPhone) commands() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.did...)
}

func (p *testPhone) Dial(_ context.Context, number, acc string) (sipua.Call, error) {
	return sipua.Call{ID: "c-new", Number: number}, p.note("dial " + number + " " + acc)
}
func (p *testPhone) Answer(_ context.Context, id string) error  { return p.note("answer " + id) }
func (p *testPhone) Decline(_ context.Context, id string) error { return p.note("decline " + id) }
func (p *testPhone) Hangup(_ context.Context, id string) error  { return p.note("hangup " + id) }
func (p *testPhone) Hold(_ context.Context, id string) error    { return p.note("hold " + id) }
func (p *testPhone) Resume(_ context.Context, id string) error  { return p.note("resume " + id) }
func (p *testPhone) SetMute(_ context.Context, id string, m bool) error {
	return p.note("mute " + id + " " + map[bool]string{true: "on", false: "off"}[m])
}
func (p *testPhone) SendDTMF(_ context.Context, id, d string) error {
	return p.note("dtmf " + id + " " + d)
}
func (p *testPhone) Transfer(_ context.Context, id, t string) error {
	return p.note("transfer " + id + " " + t)
}
func (p *testPhone) AttendedTransfer(_ context.Context, id, c string) error {
	return p.note("attended " + id + " " + c)
}
func (p *testPhone) Conference(_ context.Context, ids ...string) error {
	return p.note("conference " + strings.Join(ids, ","))
}
func (p *testPhone) Record(_ context.Context, id string, on bool) error {
	return p.note("record " + id)
}
func (p *testPhone) Calls() []sipua.Call {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]sipua.Call(nil), p.calls...)
}
func (p *testPhone) Accounts() []sipua.AccountStatus { return p.accounts }
func (p *testPhone) SelectAccount(id string) error   { return p.note("select " + id) }
func (p *testPhone) TestRegistration(_ context.Context, a store.Account, pw string) (string, error) {
	return "200 OK", p.note("testreg " + a.Username)
}

// rig is a running server on 127.0.0.1 with real settings in a temp folder.
type rig struct {
	t      *testing.T
	srv    *Server
	url    string // printed link
	origin string
	phone  *testPhone
	st     *store.SettingsStore
	bus    *sipua.Bus
	stop   func()
	cookie *http.Cookie
	csrf   string
}

func newRig(t *testing.T, mod func(*Config)) *rig {
	t.Helper()
	return newRigIn(t, t.TempDir(), mod)
}

// newRigIn is newRig with its settings in dir (a small tmpfs, say).
func newRigIn(t *testing.T, dir string, mod func(*Config)) *rig {
	t.Helper()
	st, err := store.NewSettingsStore(filepath.Join(dir, "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	if _, err := st.Update(func(s *store.Settings) error {
		s.UI.Port = port
		s.Accounts = []store.Account{{ID: "a1", Name: "Alice line", Username: "alice", Domain: "pbx.test", Transport: "udp", Enabled: true}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	ph := &testPhone{accounts: []AccountStatus{{Account: store.Account{ID: "a1", Name: "Alice line", Username: "alice", Domain: "pbx.test", Enabled: true}, State: "registered"}}}
	bus := sipua.NewBus()
	cfg := Config{Settings: st, Phone: ph, Bus: bus, Home: dir}
	if mod != nil {
		mod(&cfg)
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	link, err := srv.Listen()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx) }()
	r := &rig{t: t, srv: srv, url: link, origin: srv.Origin(), phone: ph, st: st, bus: bus}
	r.stop = func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("Serve did not end")
		}
	}
	t.Cleanup(func() { r.stop(); st.Close() })
	return r
}

// dbRig is a rig with a real store (SQLite in a temporary folder), logged in.
func dbRig(t *testing.T) (*rig, *store.DB) {
	t.Helper()
	db, err := store.OpenDB(filepath.Join(t.TempDir(), "softphone.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	r := newRig(t, func(c *Config) { c.DB = db })
	r.login()
	return r, db
}

func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

var client = &http.Client{
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	Timeout:       10 * time.Second,
}

// do sends a request; with the rig's session cookie when it has one.
func (r *rig) do(method, path string, body io.Reader, hdr map[string]string) (*http.Response, string) {
	r.t.Helper()
	req, err := r.request(method, path, body, hdr)
	if err != nil {
		r.t.Fatal(err)
	}
	res, err := client.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// request is a request to the rig's server with hdr ("Host" sets the Host)
// and the rig's session cookie when it has one.
func (r *rig) request(method, path string, body io.Reader, hdr map[string]string) (*http.Request, error) {
	req, err := http.NewRequest(method, r.origin+path, body)
	if err != nil {
		return nil, err
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	if r.cookie != nil {
		req.AddCookie(r.cookie)
	}
	return req, nil
}

var csrfMeta = regexp.MustCompile(`name="csrf-token" content="([0-9a-f]+)"`)

// login opens the printed link and keeps the session and its CSRF token.
func (r *rig) login() {
	r.t.Helper()
	u, _ := url.Parse(r.url)
	res, _ := r.do("GET", u.RequestURI(), nil, nil)
	if res.StatusCode != http.StatusSeeOther {
		r.t.Fatalf("login: status %d", res.StatusCode)
	}
	for _, c := range res.Cookies() {
		r.cookie = c
	}
	_, body := r.do("GET", "/", nil, nil)
	m := csrfMeta.FindStringSubmatch(body)
	if m == nil {
		r.t.Fatalf("no csrf token on the page")
	}
	r.csrf = m[1]
}

// form posts a form as our own page does (Origin, Sec-Fetch-Site, token).
func (r *rig) form(path string, v url.Values) (*http.Response, string) {
	return r.do("POST", path, strings.NewReader(v.Encode()), map[string]string{
		"Content-Type": "application/x-www-form-urlencoded", "Origin": r.origin,
		"Sec-Fetch-Site": "same-origin", "X-CSRF-Token": r.csrf, "HX-Request": "true"})
}

func itoa(i int) string { return strconv.Itoa(i) }
