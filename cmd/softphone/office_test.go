package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/internal/testpeer"
)

// apiDo sends a JSON request with the API token and decodes the answer.
func apiDo(t *testing.T, method, url, token string, body any) (int, map[string]any) {
	t.Helper()
	var rd *bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, _ := http.NewRequest(method, url, rd)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// TestWatchAndPickUpThroughTheAPI is the office path through the real
// binary: a contact created with watch through the API is subscribed to
// (the database tells the phone), its line_state follows a call ringing at
// the colleague (baresip, through kamailio's presence server), and
// POST /contacts/{id}/pickup takes that call over from the caller
// (pickup/caller.py, which accepts Replaces) as an ordinary call with
// webhooks and history.
func TestWatchAndPickUpThroughTheAPI(t *testing.T) {
	kam := testpeer.KamailioPresence(t)
	home, hooks := t.TempDir(), newReceiver(t)
	accountID := "5b3c1d2e-4f60-4a1b-8c2d-3e4f5a6b7c8d"
	apiPort := testpeer.FreeTCPPort(t)
	api := "http://127.0.0.1:" + strconv.Itoa(apiPort)
	writeSettings(t, home, map[string]any{
		"api":      map[string]any{"enabled": true, "port": apiPort},
		"webhooks": map[string]any{"enabled": true, "url": hooks.URL + "/hook", "method": "POST"},
		"sip":      map[string]any{"listen": "127.0.0.1:" + strconv.Itoa(testpeer.FreeSIPPort(t))},
		// Debug: the log shows each dialog NOTIFY's line state (CI run 2 of
		// note 14: a pickup refused right after the line showed ringing).
		"diagnostics": map[string]any{"log_level": "debug"},
		"accounts": []map[string]any{{"id": accountID, "name": "Office", "username": "alice", "domain": "127.0.0.1",
			"port": kam.Port, "transport": "udp", "expiry_s": 300, "enabled": true, "mwi": true}},
	})
	const token = "office-token"
	for name, v := range map[string]string{"account:" + accountID: "alicepw", "api-token": token} {
		if out, err := runCmd(t, v, noKeyring, "--home", home, "secret", "set", name); err != nil {
			t.Fatalf("secret %s: %v %s", name, err, out)
		}
	}
	testpeer.StartBaresip(t, testpeer.BaresipOpts{User: "bob", Pass: "bobpw", Registrar: kam.Addr()})
	p := startPhone(t, home, noKeyring)
	defer p.stop(t)
	if !testpeer.WaitFor(15*time.Second, func() bool {
		var accs []map[string]any
		return testpeer.GetJSON(api+"/accounts", &accs) == nil && len(accs) == 1 && accs[0]["state"] == "registered"
	}) {
		t.Fatalf("account did not register:\n%s", p.Output())
	}
	code, ct := apiDo(t, "POST", api+"/contacts", token, map[string]any{"name": "Bob", "number": "bob", "watch": true})
	if code != http.StatusCreated {
		t.Fatalf("POST /contacts: %d %v", code, ct)
	}
	id, _ := ct["id"].(string)
	lineIs := func(want string) bool {
		var c map[string]any
		return testpeer.GetJSON(api+"/contacts/"+id, &c) == nil && c["line_state"] == want
	}
	if !testpeer.WaitFor(10*time.Second, func() bool { return lineIs("idle") }) {
		t.Fatalf("bob's line never idle:\n%s", p.Output())
	}
	// The mailbox is watched: nothing published yet, the count stays unknown (null).
	var accs []map[string]any
	if err := testpeer.GetJSON(api+"/accounts", &accs); err != nil || accs[0]["voicemail"] != nil {
		t.Errorf("voicemail %v (%v), want null", accs[0]["voicemail"], err)
	}

	caller := kam.StartCaller(t, "carol", "bob")
	if caller.Await("ringing", 5*time.Second) == "" {
		t.Fatalf("carol's call did not ring at bob:\n%s", caller.Output())
	}
	if !testpeer.WaitFor(3*time.Second, func() bool { return lineIs("ringing") }) {
		t.Fatal("bob's line never showed ringing")
	}
	code, out := apiDo(t, "POST", api+"/contacts/"+id+"/pickup", "", nil)
	if code != http.StatusCreated {
		var c map[string]any
		_ = testpeer.GetJSON(api+"/contacts/"+id, &c)
		t.Fatalf("pickup: %d %v; contact now %v\nphone (dialog NOTIFYs, pickup, subscriptions):\n%s\nkamailio:\n%s", code, out, c,
			grepLines(p.Output(), "dialog NOTIFY", "pickup", "subscription"), tail(kam.Log(), 3000))
	}
	call, _ := out["id"].(string)
	if !testpeer.WaitFor(10*time.Second, func() bool {
		var c map[string]any
		return testpeer.GetJSON(api+"/calls/"+call, &c) == nil && c["state"] == "active"
	}) {
		t.Fatalf("the picked-up call never became active:\n%s\n%s", caller.Output(), p.Output())
	}
	if caller.Await("replaced-by", 5*time.Second) == "" {
		t.Fatalf("carol's call was not replaced:\n%s", caller.Output())
	}
	if code, out := apiDo(t, "POST", api+"/calls/"+call+"/hangup", "", nil); code >= 300 {
		t.Fatalf("hangup: %d %v", code, out)
	}
	var states []string
	var evs []map[string]string
	if !testpeer.WaitFor(10*time.Second, func() bool {
		states, evs = hooks.ofCall(call)
		return len(states) > 0 && states[len(states)-1] == "call-ended:ended"
	}) {
		t.Fatalf("webhooks of the picked-up call: %v", states)
	}
	if evs[0]["seance_id"] == "" || evs[0]["direction"] != "out" {
		t.Errorf("call-started of the pickup: %v", evs[0])
	}
	var hist []map[string]any
	if err := testpeer.GetJSON(api+"/history?limit=1", &hist); err != nil || len(hist) != 1 || hist[0]["call_id"] != call {
		t.Errorf("history: %v %v", err, hist)
	}
}

// grepLines gives the lines of s that hold any of subs.
func grepLines(s string, subs ...string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if slices.ContainsFunc(subs, func(sub string) bool { return strings.Contains(l, sub) }) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// tail gives the last n bytes of s.
func tail(s string, n int) string { return s[max(0, len(s)-n):] }
