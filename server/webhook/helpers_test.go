package webhook

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/store"
)

// counters records the three webhook counters.
type counters struct{ delivered, failed, dropped atomic.Int64 }

func (c *counters) WebhookDelivered() { c.delivered.Add(1) }
func (c *counters) WebhookFailed()    { c.failed.Add(1) }
func (c *counters) WebhookDropped()   { c.dropped.Add(1) }

// secrets is a keyring of fixed values (store.Secrets is the real one).
type secrets map[string]string

func (s secrets) Get(name string) (string, error) {
	if v, ok := s[name]; ok {
		return v, nil
	}
	return "", store.ErrNoSecret
}

func openDB(t testing.TB, dir string) *store.DB {
	t.Helper()
	db, err := store.OpenDB(filepath.Join(dir, "softphone.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// hit is one request a receiver got.
type hit struct {
	Method, Path, RawQuery string
	Header                 http.Header
	Body                   []byte
	Fields                 map[string]any // POST body decoded
}

// receiver is a real HTTP server on 127.0.0.1 that records what it gets.
// answer (optional) gives the status of the nth request (from 1).
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	hits   []hit
	n      atomic.Int64
	answer func(n int64, w http.ResponseWriter, r *http.Request) int
	more   chan struct{}
}

func newReceiver(t testing.TB, answer func(n int64, w http.ResponseWriter, r *http.Request) int) *receiver {
	rc := &receiver{answer: answer, more: make(chan struct{}, 1)}
	rc.Server = httptest.NewServer(http.HandlerFunc(rc.serve))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	n := rc.n.Add(1)
	status := http.StatusOK
	if rc.answer != nil {
		status = rc.answer(n, w, r)
	}
	if status/100 == 2 {
		h := hit{Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, Header: r.Header.Clone(), Body: body}
		if len(body) > 0 {
			_ = json.Unmarshal(body, &h.Fields)
		}
		rc.mu.Lock()
		rc.hits = append(rc.hits, h)
		rc.mu.Unlock()
		select {
		case rc.more <- struct{}{}:
		default:
		}
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, "ok")
}

// wait returns the first n accepted requests, failing after a deadline.
func (rc *receiver) wait(t testing.TB, n int) []hit {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		rc.mu.Lock()
		if len(rc.hits) >= n {
			h := append([]hit(nil), rc.hits...)
			rc.mu.Unlock()
			return h
		}
		got := len(rc.hits)
		rc.mu.Unlock()
		select {
		case <-rc.more:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			t.Fatalf("receiver got %d requests, want %d", got, n)
		}
	}
}

func (rc *receiver) count() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.hits)
}

// eventually polls cond until it holds, failing after a deadline.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func settingsFor(url, method string, silenced ...string) store.Settings {
	var st store.Settings
	st.Integration.Enabled = true
	st.Webhooks = store.WebhookSettings{Enabled: true, URL: url, Method: method, Silenced: silenced}
	return st
}

// rig is a sender running on a real bus and a real database.
type rig struct {
	bus    *sipua.Bus
	sub    *sipua.Subscription
	db     *store.DB
	cnt    *counters
	s      *Sender
	cancel context.CancelFunc
	done   chan struct{}
}

func newRig(t testing.TB, st store.Settings, tune func(*Config)) *rig {
	t.Helper()
	r := &rig{bus: sipua.NewBus(), db: openDB(t, t.TempDir()), cnt: &counters{}}
	cfg := Config{Settings: st, DB: r.db, Metrics: r.cnt, Version: "1.2.3", InstallMethod: "deb",
		RetryBase: 10 * time.Millisecond, RetryMax: 50 * time.Millisecond, Poll: 10 * time.Millisecond}
	if tune != nil {
		tune(&cfg)
	}
	r.s = New(cfg)
	r.sub = r.bus.Subscribe(DefaultBuffer, false)
	r.s.Consume(r.sub)
	r.start()
	t.Cleanup(r.stop)
	return r
}

func (r *rig) start() {
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel, r.done = cancel, make(chan struct{})
	go func() { _ = r.s.Serve(ctx); close(r.done) }()
}

func (r *rig) stop() {
	r.cancel()
	<-r.done
	r.sub.Close()
}

func (r *rig) outboxLen(t testing.TB) int {
	n, err := r.db.OutboxLen(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

var t0 = time.UnixMilli(1_763_700_000_000)

// phoneCall plays a call's life on the bus the way sipua publishes it.
type phoneCall struct {
	bus *sipua.Bus
	c   sipua.Call
	now time.Time
}

func newCall(bus *sipua.Bus, dir sipua.Direction, number string) *phoneCall {
	c := sipua.Call{ID: uuid.NewString(), SeanceID: uuid.NewString(), AccountID: uuid.NewString(),
		Account: "alice@pbx.example", Direction: dir, Number: number, URI: "sip:" + number + "@pbx.example",
		StartedAt: t0, StateAt: t0, Reason: sipua.ReasonNone}
	if dir == sipua.DirOut {
		c.State, c.Dialed, c.URI = sipua.StateDialing, number, "sip:"+number+"@pbx.example:5060"
	} else {
		c.State, c.Name = sipua.StateRingingIn, "Bob Example"
	}
	pc := &phoneCall{bus: bus, c: c, now: t0}
	bus.Publish(sipua.Event{Kind: sipua.EventCallStarted, At: t0, Call: c})
	return pc
}

func (pc *phoneCall) to(state sipua.CallState, after time.Duration, f func(*sipua.Call)) {
	pc.now = pc.now.Add(after)
	pc.c.State, pc.c.StateAt = state, pc.now
	if f != nil {
		f(&pc.c)
	}
	kind := sipua.EventCallStateChanged
	if state == sipua.StateEnded {
		kind = sipua.EventCallEnded
	}
	pc.bus.Publish(sipua.Event{Kind: kind, At: pc.now, Call: pc.c})
}

func (pc *phoneCall) answer(after time.Duration) {
	pc.to(sipua.StateActive, after, func(c *sipua.Call) {
		c.AnsweredAt, c.AnsweredBy = pc.now, "no"
		if c.Direction == sipua.DirOut {
			c.Name, c.URI = "Carol Example", "sip:"+c.Number+"@pbx.example"
		}
	})
}

func (pc *phoneCall) hangup(after time.Duration, reason string) {
	pc.to(sipua.StateEnded, after, func(c *sipua.Call) { c.EndedAt, c.Reason = pc.now, reason })
}

// The real store implements what the sender declares it needs.
var (
	_ Outbox       = (*store.DB)(nil)
	_ SecretGetter = (*store.Secrets)(nil)
)
