package main

import (
	"bufio"
	"database/sql"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/glebarez/go-sqlite" // reads the phone's history as the phone wrote it

	"github.com/softphone/softphone/internal/testpeer"
)

// The rig of the crash tests (issue 14): the real binary with its API on,
// SIPp calling it straight (the account's server is 127.0.0.1, so SIPp's
// INVITEs come from the account's server), and a real webhook receiver
// that can be down (503), slow or up.

// hookLog is a webhook receiver that keeps every request in arrival order.
type hookLog struct {
	*httptest.Server
	mu   sync.Mutex
	mode string // down, slow, up
	hits []hookHit
}

type hookHit struct {
	delivery string
	fields   map[string]string
}

func newHookLog(t *testing.T) *hookLog {
	h := &hookLog{mode: "up"}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var ev map[string]string
		if err := json.NewDecoder(req.Body).Decode(&ev); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		h.mu.Lock()
		mode := h.mode
		h.mu.Unlock()
		if mode == "down" {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		// Kept in the order of arrival (a slow receiver has the event
		// before it answers).
		h.mu.Lock()
		h.hits = append(h.hits, hookHit{delivery: req.Header.Get("Webhook-Id"), fields: ev})
		h.mu.Unlock()
		if mode == "slow" {
			time.Sleep(1500 * time.Millisecond) // a slow receiver: the answer takes this long
		}
	}))
	t.Cleanup(h.Close)
	return h
}

func (h *hookLog) set(mode string) {
	h.mu.Lock()
	h.mode = mode
	h.mu.Unlock()
}

func (h *hookLog) snapshot() []hookHit {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]hookHit(nil), h.hits...)
}

// crashRig is a home whose phone answers nothing by itself.
type crashRig struct {
	home, api string
	sipPort   int
	sippDir   string
	hooks     *hookLog
}

func newCrashRig(t *testing.T, home string) *crashRig {
	t.Helper()
	testpeer.Require(t, "sipp")
	r := &crashRig{home: home, hooks: newHookLog(t), sipPort: testpeer.FreeSIPPort(t), sippDir: testpeer.SIPpDir(t)}
	apiPort := testpeer.FreeTCPPort(t)
	r.api = "http://127.0.0.1:" + strconv.Itoa(apiPort)
	writeSettings(t, home, map[string]any{
		"api":      map[string]any{"enabled": true, "port": apiPort},
		"webhooks": map[string]any{"enabled": true, "url": r.hooks.URL + "/hook", "method": "POST"},
		"sip":      map[string]any{"listen": "127.0.0.1:" + strconv.Itoa(r.sipPort)},
		"accounts": []map[string]any{{"id": "8c0e7f1a-3b52-4c1e-9d7a-2f6b5e4d3c21", "name": "Office", "username": "alice",
			"domain": "127.0.0.1", "port": 9, "transport": "udp", "expiry_s": 300, "enabled": true}},
	})
	return r
}

// start runs the phone and waits for its API.
func (r *crashRig) start(t *testing.T) *proc {
	t.Helper()
	p := startPhone(t, r.home, noKeyring)
	if !testpeer.WaitFor(15*time.Second, func() bool { var cs []any; return testpeer.GetJSON(r.api+"/calls", &cs) == nil }) {
		t.Fatalf("API not up:\n%s", p.Output())
	}
	return p
}

// sipp places n calls to the phone at once; each waits (ringing) until the
// phone answers, then stays up for a minute. The caller kills it.
func (r *crashRig) sipp(t *testing.T, n int) *exec.Cmd {
	t.Helper()
	cmd := testpeer.SIPp(t, r.sippDir, "-sf", holdableUAC(t), "127.0.0.1:"+strconv.Itoa(r.sipPort), "-s", "alice",
		"-r", "20", "-m", strconv.Itoa(n), "-l", strconv.Itoa(n), "-p", strconv.Itoa(testpeer.FreeUDPPort(t)),
		"-timeout", "90s")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}

// calls is GET /calls: id -> state.
func (r *crashRig) calls() map[string]string {
	var cs []map[string]any
	out := map[string]string{}
	if testpeer.GetJSON(r.api+"/calls", &cs) != nil {
		return out
	}
	for _, c := range cs {
		id, _ := c["id"].(string)
		st, _ := c["state"].(string)
		out[id] = st
	}
	return out
}

// waitCalls waits until n calls are in state.
func (r *crashRig) waitCalls(t *testing.T, p *proc, n int, state string) []string {
	t.Helper()
	var ids []string
	if !testpeer.WaitFor(20*time.Second, func() bool {
		ids = ids[:0]
		for id, st := range r.calls() {
			// "connected": active or held (answering a call holds the one
			// connected before, issue 13).
			if st == state || state == "connected" && (st == "active" || st == "hold") {
				ids = append(ids, id)
			}
		}
		return len(ids) == n
	}) {
		t.Fatalf("%d calls in %s, want %d: %v\n%s", len(ids), state, n, r.calls(), p.Output())
	}
	return ids
}

func (r *crashRig) action(t *testing.T, id, what string) {
	t.Helper()
	if code, out := postJSON(t, r.api+"/calls/"+id+"/"+what, nil); code != http.StatusNoContent {
		t.Fatalf("%s %s: %d %v", what, id, code, out)
	}
}

// historyRow reads the call's row as the phone wrote it (read-only).
func (r *crashRig) historyRow(t *testing.T, callID string) (answered, open bool, ok bool) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(r.home, "softphone.db")+"?mode=ro&_pragma=busy_timeout(2000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var a, o int
	if err := db.QueryRow("SELECT answered, open FROM history WHERE call_id = ?", callID).Scan(&a, &o); err != nil {
		return false, false, false
	}
	return a == 1, o == 1, true
}

// counters reads /metrics.
func (r *crashRig) counters(t *testing.T) map[string]float64 {
	t.Helper()
	resp, err := http.Get(r.api + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 && !strings.HasPrefix(f[0], "#") {
			v, _ := strconv.ParseFloat(f[1], 64)
			out[f[0]] = v
		}
	}
	return out
}

// sse is an /events stream of the API.
type sse struct {
	resp   *http.Response
	events chan sseEvent
}

type sseEvent struct {
	id     uint64
	kind   string
	fields map[string]string
}

func openSSE(t *testing.T, url, lastID string) *sse {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	s := &sse{resp: resp, events: make(chan sseEvent, 1024)}
	go func() {
		defer close(s.events)
		sc := bufio.NewScanner(resp.Body)
		var e sseEvent
		for sc.Scan() {
			l := sc.Text()
			switch {
			case strings.HasPrefix(l, "id: "):
				e.id, _ = strconv.ParseUint(l[4:], 10, 64)
			case strings.HasPrefix(l, "event: "):
				e.kind = l[7:]
			case strings.HasPrefix(l, "data: "):
				_ = json.Unmarshal([]byte(l[6:]), &e.fields)
			case l == "" && e.kind != "":
				s.events <- e
				e = sseEvent{}
			}
		}
	}()
	t.Cleanup(func() { resp.Body.Close() })
	return s
}

// holdableUAC is the path of testdata/uac_holdable.xml: SIPp's uac that also
// takes hold re-INVITEs (answering a call holds the connected one, issue 13).
func holdableUAC(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "uac_holdable.xml"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}
