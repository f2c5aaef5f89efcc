package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/server/metrics"
	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/store"
)

// Fixed ids of the test world.
const (
	accountA = "3f1c2b7e-8a4d-4c1e-9b2a-5d6e7f8a9b0c"
	accountB = "7d2e4f6a-1b3c-4d5e-8f9a-0b1c2d3e4f5a"
	token    = "s3cret-token-for-tests"
)

// env is one phone's API, listening for real on 127.0.0.1, with real SQLite,
// real settings and secrets files, a real bus and counters; only the SIP
// phone is a fake.
type env struct {
	t     testing.TB
	home  string
	set   *store.SettingsStore
	db    *store.DB
	sec   *store.Secrets
	bus   *sipua.Bus
	phone *fakePhone
	met   *metrics.Metrics
	srv   *Server
	base  string
	stop  func()
	hooks int // webhook tests sent
}

func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// newEnv starts an API switched on with two accounts; edit adjusts the settings.
func newEnv(t testing.TB, edit ...func(*store.Settings)) *env {
	t.Helper()
	return newEnvCfg(t, nil, edit...)
}

// newEnvCfg is newEnv with the server's Config adjusted by cfg (limits, the
// wait for an origin's approval).
func newEnvCfg(t testing.TB, cfg func(*Config), edit ...func(*store.Settings)) *env {
	t.Helper()
	e := &env{t: t, home: t.TempDir(), bus: sipua.NewBus(), met: metrics.New()}
	var err error
	if e.set, err = store.NewSettingsStore(filepath.Join(e.home, "settings.json")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.set.Close)
	if e.db, err = store.OpenDB(filepath.Join(e.home, "softphone.db")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.db.Close() })
	e.sec = store.OpenSecrets(e.home)
	port := freePort(t)
	if _, err := e.set.Update(func(s *store.Settings) error {
		s.API.Enabled, s.API.Port, s.UI.Port = true, port, freePort(t)
		s.Accounts = []store.Account{
			{ID: accountA, Name: "Office", Username: "alice", Domain: "pbx.test", Port: 5060, Transport: "udp", ExpiryS: 300, Enabled: true},
			{ID: accountB, Name: "Spare", Username: "bob", Domain: "pbx.test", Port: 5061, Transport: "tcp", ExpiryS: 600, Enabled: false},
		}
		s.SIP.SelectedAccount = accountA
		for _, f := range edit {
			f(s)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	e.phone = newFakePhone(e.bus, e.set.Get)
	c := Config{Settings: e.set, Phone: e.phone, DB: e.db, Secrets: e.sec, Metrics: e.met, Bus: e.bus,
		Home: e.home, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), WebhookTest: func(context.Context) (int, string, error) { e.hooks++; return 200, "ok", nil }}
	if cfg != nil {
		cfg(&c)
	}
	e.srv = New(c)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.srv.Serve(ctx) }()
	e.stop = func() { cancel(); <-done }
	t.Cleanup(func() { e.stop() })
	if e.set.Get().API.Enabled && e.set.Get().Integration.Enabled {
		e.base = "http://" + e.waitAddr(func(a string) bool { return a != "" })
		// The contract check loads the served document now, so that its
		// request is not counted in the middle of a test.
		if _, err := (&contractTransport{t: t, base: http.DefaultTransport}).served(strings.TrimPrefix(e.base, "http://")); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// waitAddr polls Addr until ok (the listener moves on its own goroutine and
// tells no one; poll with a deadline).
func (e *env) waitAddr(ok func(string) bool) string {
	e.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		a := e.srv.Addr()
		if ok(a) {
			return a
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("API address stayed %q", a)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (e *env) setToken() {
	if err := e.sec.Set("api-token", token); err != nil {
		e.t.Fatal(err)
	}
	e.srv.tok.forget()
}

func (e *env) update(fn func(*store.Settings)) {
	e.t.Helper()
	if _, err := e.set.Update(func(s *store.Settings) error { fn(s); return nil }); err != nil {
		e.t.Fatal(err)
	}
}

// resp is one answer, read whole.
type resp struct {
	status int
	header http.Header
	body   []byte
}

func (r resp) json(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("body %q: %v", r.body, err)
	}
}

func (r resp) errMsg(t testing.TB) string {
	t.Helper()
	var m map[string]any
	r.json(t, &m)
	if len(m) != 1 {
		t.Fatalf("error body %s has not exactly one key", r.body)
	}
	s, ok := m["error"].(string)
	if !ok {
		t.Fatalf("error body %s: no error string", r.body)
	}
	return s
}

// req is one request; hdr is "Name: value" pairs.
func do(t testing.TB, method, url, body string, hdr ...string) resp {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	r, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	for _, h := range hdr {
		k, v, _ := strings.Cut(h, ":")
		v = strings.TrimSpace(v)
		if strings.EqualFold(k, "Host") {
			r.Host = v
			continue
		}
		if v == "" {
			r.Header.Del(k)
		} else {
			r.Header.Set(k, v)
		}
	}
	res, err := apiClient(t).Do(r)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp{status: res.StatusCode, header: res.Header, body: bytes.Clone(b)}
}

func (e *env) get(path string, hdr ...string) resp { return do(e.t, "GET", e.base+path, "", hdr...) }

func (e *env) post(path, body string, hdr ...string) resp {
	return do(e.t, "POST", e.base+path, body, hdr...)
}

func bearer(tok string) string { return "Authorization: Bearer " + tok }

func (e *env) counter(name string) float64 { return e.met.Value(name) }

func itoa(i int) string { return strconv.Itoa(i) }

// waitFor polls cond with a deadline, for changes no event announces.
func waitFor(t testing.TB, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
