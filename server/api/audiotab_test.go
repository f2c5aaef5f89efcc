package api

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/softphone/softphone/server/metrics"
	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/store"
)

// fakeTabs is the audio bridge as POST /calls sees it: a tab turns ready
// when the page the phone opened is loaded (after loadIn), or never.
type fakeTabs struct {
	mu    sync.Mutex
	ready bool
	ch    chan struct{}
}

func newFakeTabs(ready bool) *fakeTabs { return &fakeTabs{ready: ready, ch: make(chan struct{})} }

func (f *fakeTabs) Ready() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ready
}

func (f *fakeTabs) setReady() {
	f.mu.Lock()
	if !f.ready {
		f.ready = true
		close(f.ch)
	}
	f.mu.Unlock()
}

func (f *fakeTabs) WaitReady(ctx context.Context) bool {
	f.mu.Lock()
	ch := f.ch
	f.mu.Unlock()
	select {
	case <-ch:
		return true
	case <-ctx.Done():
		return false
	}
}

// newTabEnv is newEnv with the audio bridge and the page opener given.
func newTabEnv(t *testing.T, tabs AudioTabs, open func() bool, requireTab bool) *env {
	t.Helper()
	e := &env{t: t, home: t.TempDir(), bus: sipua.NewBus(), met: metrics.New()}
	var err error
	if e.set, err = store.NewSettingsStore(filepath.Join(e.home, "settings.json")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.set.Close)
	e.update(func(s *store.Settings) {
		s.API.Enabled, s.API.Port, s.UI.Port = true, freePort(t), freePort(t)
		s.Accounts = []store.Account{{ID: accountA, Name: "Office", Username: "alice", Domain: "pbx.test", Port: 5060, Transport: "udp", ExpiryS: 300, Enabled: true}}
		s.Audio.RequireTab = requireTab
		s.SIP.SelectedAccount = accountA
	})
	e.phone = newFakePhone(e.bus, e.set.Get)
	e.srv = New(Config{Settings: e.set, Phone: e.phone, Metrics: e.met, Bus: e.bus, Home: e.home,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Audio: tabs, OpenPage: open})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.srv.Serve(ctx) }()
	e.stop = func() { cancel(); <-done }
	t.Cleanup(func() { e.stop() })
	e.base = "http://" + e.waitAddr(func(a string) bool { return a != "" })
	return e
}

// TestDialWithoutTab: no tab holds the audio, so the phone opens its page
// and waits; none comes: 409 with the message, after about 5 s, nothing dialled.
func TestDialWithoutTab(t *testing.T) {
	var opened atomic.Int32
	e := newTabEnv(t, newFakeTabs(false), func() bool { opened.Add(1); return true }, true)
	t0 := time.Now()
	r := e.post("/calls", `{"number":"bob"}`)
	took := time.Since(t0)
	if r.status != http.StatusConflict || string(r.body) != `{"error":"no browser tab holds the audio: open the phone page"}` {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if opened.Load() != 1 || took < tabWait {
		t.Fatalf("page opened %d times, answered after %v (want once, after %v)", opened.Load(), took, tabWait)
	}
	if cmds := e.phone.Commands(); len(cmds) != 0 {
		t.Fatalf("dialled: %v", cmds)
	}
}

// TestDialWithoutDesktop: no page can be opened: 409 at once.
func TestDialWithoutDesktop(t *testing.T) {
	e := newTabEnv(t, newFakeTabs(false), func() bool { return false }, true)
	t0 := time.Now()
	r := e.post("/calls", `{"number":"bob"}`)
	if r.status != http.StatusConflict || time.Since(t0) > 2*time.Second || len(e.phone.Commands()) != 0 {
		t.Fatalf("%d %s after %v, commands %v", r.status, r.body, time.Since(t0), e.phone.Commands())
	}
}

// TestDialWaitsForTheOpenedPage: the page opened takes the audio within
// the wait: the call is placed.
func TestDialWaitsForTheOpenedPage(t *testing.T) {
	tabs := newFakeTabs(false)
	e := newTabEnv(t, tabs, func() bool { go tabs.setReady(); return true }, true)
	if r := e.post("/calls", `{"number":"bob"}`); r.status != http.StatusCreated {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if cmds := e.phone.Commands(); len(cmds) != 1 {
		t.Fatalf("commands %v", cmds)
	}
}

// TestDialRequireTabOff: audio.require_tab false places calls without a tab.
func TestDialRequireTabOff(t *testing.T) {
	e := newTabEnv(t, newFakeTabs(false), func() bool { t.Error("page opened"); return true }, false)
	if r := e.post("/calls", `{"number":"bob"}`); r.status != http.StatusCreated {
		t.Fatalf("%d %s", r.status, r.body)
	}
}

// TestDialWithTab: a tab holds the audio: no page opened, the call placed.
func TestDialWithTab(t *testing.T) {
	e := newTabEnv(t, newFakeTabs(true), func() bool { t.Error("page opened"); return true }, true)
	if r := e.post("/calls", `{"number":"bob"}`); r.status != http.StatusCreated {
		t.Fatalf("%d %s", r.status, r.body)
	}
}

// TestDialBurstOpensOnePage: calls while the opened page loads wait for it
// rather than opening one page each.
func TestDialBurstOpensOnePage(t *testing.T) {
	var opened atomic.Int32
	tabs := newFakeTabs(false)
	e := newTabEnv(t, tabs, func() bool { opened.Add(1); return true }, true)
	var wg sync.WaitGroup
	codes := make([]int, 3)
	for i := range codes {
		wg.Add(1)
		go func() { defer wg.Done(); codes[i] = e.post("/calls", `{"number":"bob"}`).status }()
	}
	waitFor(t, func() bool { return opened.Load() > 0 })
	tabs.setReady()
	wg.Wait()
	if opened.Load() != 1 {
		t.Fatalf("%d pages opened for one burst", opened.Load())
	}
	for _, c := range codes {
		if c != http.StatusCreated {
			t.Fatalf("codes %v", codes)
		}
	}
}
