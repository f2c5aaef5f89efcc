package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/softphone/softphone/internal/testpeer"
)

// receiver is a real HTTP webhook receiver that keeps what it was sent.
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	events []map[string]string
	auth   []string
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var ev map[string]string
		if err := json.NewDecoder(req.Body).Decode(&ev); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		r.events = append(r.events, ev)
		r.auth = append(r.auth, req.Header.Get("Authorization"))
		r.mu.Unlock()
	}))
	t.Cleanup(r.Close)
	return r
}

// ofCall returns the states of the events received for a call, in order.
func (r *receiver) ofCall(id string) (states []string, evs []map[string]string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.events {
		if e["id"] == id {
			states = append(states, e["event"]+":"+e["state"])
			evs = append(evs, e)
		}
	}
	return states, evs
}

// phoneRig is the binary registered at kamailio, with its API on and its
// webhooks pointed at a real receiver.
type phoneRig struct {
	kam       *testpeer.Kam
	home      string
	api       string
	accountID string
	hooks     *receiver
	env       []string
}

func newRig(t *testing.T) *phoneRig {
	t.Helper()
	r := &phoneRig{kam: testpeer.Kamailio(t), home: t.TempDir(), hooks: newReceiver(t), env: noKeyring,
		accountID: "8c0e7f1a-3b52-4c1e-9d7a-2f6b5e4d3c21"}
	apiPort := testpeer.FreeTCPPort(t)
	r.api = "http://127.0.0.1:" + strconv.Itoa(apiPort)
	writeSettings(t, r.home, map[string]any{
		"api":      map[string]any{"enabled": true, "port": apiPort},
		"webhooks": map[string]any{"enabled": true, "url": r.hooks.URL + "/hook", "method": "POST", "header_name": "Authorization"},
		"sip":      map[string]any{"listen": "127.0.0.1:" + strconv.Itoa(testpeer.FreeSIPPort(t))},
		"audio":    map[string]any{"require_tab": false}, // calls placed without a browser tab
		"accounts": []map[string]any{{"id": r.accountID, "name": "Office", "username": "alice", "domain": "127.0.0.1",
			"port": r.kam.Port, "transport": "udp", "expiry_s": 300, "enabled": true}},
	})
	for name, v := range map[string]string{"account:" + r.accountID: "alicepw", "webhook-header": "Bearer hook-secret"} {
		if out, err := runCmd(t, v, r.env, "--home", r.home, "secret", "set", name); err != nil {
			t.Fatalf("secret %s: %v %s", name, err, out)
		}
	}
	return r
}

func (r *phoneRig) start(t *testing.T) *proc {
	p := startPhone(t, r.home, r.env)
	if !testpeer.WaitFor(15*time.Second, func() bool {
		var accs []map[string]any
		return testpeer.GetJSON(r.api+"/accounts", &accs) == nil && len(accs) == 1 && accs[0]["state"] == "registered"
	}) {
		t.Fatalf("account did not register:\n%s", p.Output())
	}
	return p
}

func postJSON(t *testing.T, url string, body any) (int, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func (r *phoneRig) waitCallState(t *testing.T, id, state string) {
	t.Helper()
	if !testpeer.WaitFor(15*time.Second, func() bool {
		var calls []map[string]any
		if testpeer.GetJSON(r.api+"/calls", &calls) != nil {
			return false
		}
		for _, c := range calls {
			if c["id"] == id && c["state"] == state {
				return true
			}
		}
		return false
	}) {
		t.Fatalf("call %s never reached %s", id, state)
	}
}

// TestClickToCallThroughKamailio is an integrator's whole path: the API
// places a call through kamailio to baresip, DTMF reaches baresip, the call
// is hung up, and the webhooks, the history and the counters tell it.
// bob answers once the phone shows the call ringing: a baresip answering at
// once sends its 180 and 200 back to back, and kamailio's two UDP workers
// may forward them in either order (a 180 after the 200 rings nothing, so
// the call went dialing, active, ended: the flake of note 13).
func TestClickToCallThroughKamailio(t *testing.T) {
	r := newRig(t)
	bob := testpeer.StartBaresip(t, testpeer.BaresipOpts{User: "bob", Pass: "bobpw", Registrar: r.kam.Addr()})
	p := r.start(t)

	code, out := postJSON(t, r.api+"/calls", map[string]string{"number": "bob"})
	if code != http.StatusOK && code != http.StatusCreated {
		t.Fatalf("POST /calls: %d %v", code, out)
	}
	id, _ := out["id"].(string)
	r.waitCallState(t, id, "ringing-out")
	if _, err := bob.Ctrl("accept"); err != nil {
		t.Fatalf("bob accept: %v", err)
	}
	r.waitCallState(t, id, "active")
	if code, out := postJSON(t, r.api+"/calls/"+id+"/dtmf", map[string]string{"digits": "1"}); code >= 300 {
		t.Fatalf("dtmf: %d %v", code, out)
	}
	if !bob.WaitLog("received event: '1'", 10*time.Second) {
		t.Fatalf("baresip did not receive the digit:\n%s", bob.Log())
	}
	if code, out := postJSON(t, r.api+"/calls/"+id+"/hangup", nil); code >= 300 {
		t.Fatalf("hangup: %d %v", code, out)
	}
	wantStates := "call-started:dialing call-state-changed:ringing-out call-state-changed:active call-ended:ended"
	var states []string
	var evs []map[string]string
	if !testpeer.WaitFor(15*time.Second, func() bool {
		states, evs = r.hooks.ofCall(id)
		return len(states) >= 4
	}) || strings.Join(states, " ") != wantStates {
		t.Fatalf("webhooks for the call: %v, want %s\n%s", states, wantStates, p.Output())
	}
	end := evs[3]
	if end["reason"] != "local-hangup" || end["dialed"] != "bob" || end["account_id"] != r.accountID ||
		end["callstart_ts"] != evs[0]["callstart_ts"] || end["duration_s"] == "0" {
		t.Errorf("call-ended payload: %v", end)
	}
	r.hooks.mu.Lock()
	if r.hooks.auth[0] != "Bearer hook-secret" {
		t.Errorf("webhook Authorization header %q", r.hooks.auth[0])
	}
	r.hooks.mu.Unlock()

	var hist []map[string]any
	if err := testpeer.GetJSON(r.api+"/history?limit=1", &hist); err != nil || len(hist) != 1 {
		t.Fatalf("history: %v %v", err, hist)
	}
	if hist[0]["outcome"] != "answered" || hist[0]["seance_id"] != evs[0]["seance_id"] || hist[0]["reason"] != "local-hangup" {
		t.Errorf("history entry: %v", hist[0])
	}
	// The delivered counter moves once the outbox has recorded the answer,
	// a moment after the receiver got the request.
	want := []string{"calls_outgoing_total 1", "calls_answered_total 1", "webhooks_delivered_total 4", "registrations_succeeded_total 1"}
	var metrics []byte
	testpeer.WaitFor(10*time.Second, func() bool {
		resp, err := http.Get(r.api + "/metrics")
		if err != nil {
			return false
		}
		metrics, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		for _, line := range want {
			if !bytes.Contains(metrics, []byte(line)) {
				return false
			}
		}
		return true
	})
	for _, line := range want {
		if !bytes.Contains(metrics, []byte(line)) {
			t.Errorf("metrics lack %q", line)
		}
	}
	p.stop(t)
}

// TestKillDuringCallKeepsHistoryAndWebhooks kills the phone with -9 in the
// middle of a call while its webhook receiver is down, restarts it, and finds
// the history entry closed and the queued webhooks delivered.
func TestKillDuringCallKeepsHistoryAndWebhooks(t *testing.T) {
	r := newRig(t)
	testpeer.StartBaresip(t, testpeer.BaresipOpts{User: "bob", Pass: "bobpw", Registrar: r.kam.Addr(), AutoAnswer: true})
	// The receiver refuses everything while the phone runs the first time.
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "down", http.StatusServiceUnavailable)
	}))
	defer down.Close()
	b, _ := os.ReadFile(filepath.Join(r.home, "settings.json"))
	if err := os.WriteFile(filepath.Join(r.home, "settings.json"), bytes.ReplaceAll(b, []byte(r.hooks.URL), []byte(down.URL)), 0o600); err != nil {
		t.Fatal(err)
	}
	p := r.start(t)
	_, out := postJSON(t, r.api+"/calls", map[string]string{"number": "bob"})
	id, _ := out["id"].(string)
	r.waitCallState(t, id, "active")
	_ = p.cmd.Process.Kill()
	<-p.done

	b, _ = os.ReadFile(filepath.Join(r.home, "settings.json"))
	if err := os.WriteFile(filepath.Join(r.home, "settings.json"), bytes.ReplaceAll(b, []byte(down.URL), []byte(r.hooks.URL)), 0o600); err != nil {
		t.Fatal(err)
	}
	p = r.start(t)
	var hist []map[string]any
	if err := testpeer.GetJSON(r.api+"/history?limit=5", &hist); err != nil || len(hist) != 1 {
		t.Fatalf("history after kill -9: %v %v", err, hist)
	}
	if hist[0]["reason"] == "" || hist[0]["reason"] == "none" {
		t.Errorf("entry left open: %v", hist[0])
	}
	if !testpeer.WaitFor(30*time.Second, func() bool { s, _ := r.hooks.ofCall(id); return len(s) >= 3 }) {
		s, _ := r.hooks.ofCall(id)
		t.Fatalf("queued webhooks not delivered after restart: %v\n%s", s, p.Output())
	}
	p.stop(t)
}
