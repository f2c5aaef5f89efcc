package api

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/softphone/softphone/store"
)

func TestDialAndControl(t *testing.T) {
	e := newEnv(t)
	r := e.post("/calls", `{"number":"+4930555"}`)
	if r.status != 201 {
		t.Fatalf("dial: %d %s", r.status, r.body)
	}
	var nc map[string]any
	r.json(t, &nc)
	id, _ := nc["id"].(string)
	if len(nc) != 1 || !uuidRE.MatchString(id) {
		t.Fatalf("dial answer %s", r.body)
	}
	if r.header.Get("Location") != "/calls/"+id {
		t.Errorf("Location %q", r.header.Get("Location"))
	}
	if got := e.phone.Commands(); !slices.Equal(got, []string{"dial +4930555 "}) {
		t.Fatalf("commands %v", got)
	}
	// The call shows in GET /calls with the spec's fields and types.
	var calls []map[string]any
	e.get("/calls").json(t, &calls)
	if len(calls) != 1 || calls[0]["id"] != id {
		t.Fatalf("calls %v", calls)
	}
	checkFields(t, "call", calls[0], callFields)
	if calls[0]["state"] != "dialing" || calls[0]["direction"] != "out" || calls[0]["dialed"] != "+4930555" ||
		calls[0]["account_id"] != accountA || len(calls[0]) != len(callFields) {
		t.Errorf("call %v", calls[0])
	}
	if calls[0]["event_ts"].(float64) < calls[0]["callstate_ts"].(float64) {
		t.Errorf("event_ts before callstate_ts: %v", calls[0])
	}
	var one map[string]any
	e.get("/calls/"+id).json(t, &one)
	checkFields(t, "GET /calls/{id}", one, callFields)

	// Account given explicitly.
	if r := e.post("/calls", `{"number":"7","account_id":"`+accountB+`"}`); r.status != 201 {
		t.Fatalf("dial on B: %d %s", r.status, r.body)
	}
	if got := e.phone.Commands(); got[len(got)-1] != "dial 7 "+accountB {
		t.Fatalf("commands %v", got)
	}

	for _, c := range []struct {
		path, body string
		status     int
		msg, cmd   string
	}{
		{"/hold", "", 204, "", "hold " + id},
		{"/resume", "", 204, "", "resume " + id},
		{"/dtmf", `{"digits":"12#"}`, 204, "", "dtmf 12# " + id},
		{"/dtmf", `{}`, 400, msgNoDigits, ""},
		{"/dtmf", `{"digits":""}`, 400, msgNoDigits, ""},
		{"/dtmf", "", 400, msgNoDigits, ""},
		{"/dtmf", `{"digits":5}`, 400, "digits must be a string", ""},
		{"/transfer", `{}`, 400, msgNoTarget, ""},
		{"/transfer", `{"target":"sip:bob@pbx.test"}`, 204, "", "transfer sip:bob@pbx.test " + id},
		{"/answer", "", 409, msgCallState, "answer " + id},
		{"/hangup", "", 204, "", "hangup " + id},
		{"/hangup", "", 400, msgNoCall, ""},
		{"/hold", "", 400, msgNoCall, ""},
	} {
		before := len(e.phone.Commands())
		r := e.post("/calls/"+id+c.path, c.body)
		if r.status != c.status {
			t.Errorf("%s %s: %d %s, want %d", c.path, c.body, r.status, r.body, c.status)
			continue
		}
		if c.msg != "" && r.errMsg(t) != c.msg {
			t.Errorf("%s %s: %s, want %q", c.path, c.body, r.body, c.msg)
		}
		if c.status == 204 && len(r.body) != 0 {
			t.Errorf("%s: body on 204", c.path)
		}
		cmds := e.phone.Commands()
		if c.cmd == "" && len(cmds) != before {
			t.Errorf("%s %s: the phone was asked: %v", c.path, c.body, cmds[before:])
		}
		if c.cmd != "" && cmds[len(cmds)-1] != c.cmd {
			t.Errorf("%s: commands %v, want %s last", c.path, cmds, c.cmd)
		}
	}
	if r := e.get("/calls/" + id); r.status != 404 || r.errMsg(t) != msgNoCall {
		t.Errorf("GET of an ended call: %d %s", r.status, r.body)
	}
}

func TestTransferAfterAccountRemoved(t *testing.T) {
	e := newEnv(t)
	e.setToken()
	r := e.post("/calls", `{"number":"42","account_id":"`+accountB+`"}`)
	var nc struct{ ID string }
	r.json(t, &nc)
	if r := do(t, "DELETE", e.base+"/accounts/"+accountB, "", bearer(token)); r.status != 204 {
		t.Fatalf("delete account: %d %s", r.status, r.body)
	}
	r = e.post("/calls/"+nc.ID+"/transfer", `{"target":"43"}`)
	if r.status != 400 || r.errMsg(t) != msgAccountGone {
		t.Fatalf("transfer: %d %s", r.status, r.body)
	}
}

func TestDialWithoutAccount(t *testing.T) {
	e := newEnv(t, func(s *store.Settings) { s.SIP.SelectedAccount = "" })
	r := e.post("/calls", `{"number":"1"}`)
	if r.status != 400 || r.errMsg(t) != msgNoPhone {
		t.Fatalf("%d %s", r.status, r.body)
	}
}

func TestIdempotencyKey(t *testing.T) {
	e := newEnv(t)
	var ids []string
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := do(t, "POST", e.base+"/calls", `{"number":"555"}`, "Idempotency-Key: click-1")
			var nc struct{ ID string }
			r.json(t, &nc)
			mu.Lock()
			ids = append(ids, nc.ID)
			mu.Unlock()
		}()
	}
	wg.Wait()
	for _, id := range ids {
		if id != ids[0] || id == "" {
			t.Fatalf("ids %v", ids)
		}
	}
	r := do(t, "POST", e.base+"/calls", `{"number":"555"}`, "Idempotency-Key: click-1")
	if r.status != 201 || r.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("replay: %d %v", r.status, r.header)
	}
	if n := len(e.phone.Commands()); n != 1 {
		t.Fatalf("dialled %d times", n)
	}
	do(t, "POST", e.base+"/calls", `{"number":"555"}`, "Idempotency-Key: click-2")
	e.post("/calls", `{"number":"555"}`)
	if n := len(e.phone.Commands()); n != 3 {
		t.Fatalf("dialled %d times, want 3", n)
	}
	// A refused dial is not remembered.
	if r := do(t, "POST", e.base+"/calls", `{}`, "Idempotency-Key: click-3"); r.status != 400 {
		t.Fatal(r.status)
	}
	if r := do(t, "POST", e.base+"/calls", `{"number":"1"}`, "Idempotency-Key: click-3"); r.status != 201 || r.header.Get("Idempotent-Replayed") != "" {
		t.Fatal(r.status)
	}
}

// TestIdempotencyKeysAreKept: distinct keys of one length, one after the
// other, each dial once. The keys are kept beyond their request, so they
// must not share the server's request buffers.
func TestIdempotencyKeysAreKept(t *testing.T) {
	e := newEnv(t)
	for i := range 100 {
		r := do(t, "POST", e.base+"/calls", `{"number":"555"}`, fmt.Sprintf("Idempotency-Key: key-%03d", i))
		if r.status != 201 || r.header.Get("Idempotent-Replayed") != "" {
			t.Fatalf("key-%03d: %d replayed=%q", i, r.status, r.header.Get("Idempotent-Replayed"))
		}
	}
	if n := len(e.phone.Commands()); n != 100 {
		t.Fatalf("dialled %d times, want 100", n)
	}
}

func TestIdempotencyWindowExpires(t *testing.T) {
	m := newIdempotency(0)
	n := 0
	place := func() (string, error) { n++; return "id" + itoa(n), nil }
	a, _, _ := m.do("k", place)
	b, replayed, _ := m.do("k", place)
	if a == b || replayed || n != 2 {
		t.Fatalf("expired key replayed: %s %s", a, b)
	}
}

// Click-to-call from a page of an approved origin: the preflight passes
// (with Chrome's private network access), then the POST carries the CORS
// headers. Other origins are refused (origins.go tests the question).
func TestCORS(t *testing.T) {
	e := newEnvCfg(t, func(c *Config) { c.AskWait = 50 * time.Millisecond },
		func(s *store.Settings) { s.API.AllowedOrigins = []string{"http://crm.example"} })
	pre := []string{"Origin: http://crm.example", "Access-Control-Request-Method: POST",
		"Access-Control-Request-Headers: content-type,idempotency-key", "Access-Control-Request-Private-Network: true"}
	r := do(t, "OPTIONS", e.base+"/calls", "", pre...)
	if r.status != 204 || r.header.Get("Access-Control-Allow-Origin") != "http://crm.example" ||
		r.header.Get("Access-Control-Allow-Private-Network") != "true" ||
		!strings.Contains(r.header.Get("Access-Control-Allow-Headers"), "Idempotency-Key") {
		t.Fatalf("preflight: %d %v", r.status, r.header)
	}
	r = e.post("/calls", `{"number":"1"}`, "Origin: http://crm.example")
	if r.status != 201 || r.header.Get("Access-Control-Allow-Origin") != "http://crm.example" {
		t.Fatalf("POST: %d %v", r.status, r.header)
	}
	// A write that needs the token passes its preflight too (the preflight
	// cannot carry the token).
	delPre := []string{"Origin: http://crm.example", "Access-Control-Request-Method: DELETE", "Access-Control-Request-Headers: authorization"}
	if r := do(t, "OPTIONS", e.base+"/contacts/"+unknownUUID, "", delPre...); r.status != 204 ||
		!strings.Contains(r.header.Get("Access-Control-Allow-Methods"), "DELETE") {
		t.Errorf("preflight of a write: %d %v", r.status, r.header)
	}
	if r := do(t, "OPTIONS", e.base+"/nope", "", pre...); r.status != 404 {
		t.Errorf("preflight of an unknown path: %d", r.status)
	}

	other := append([]string{"Origin: http://evil.example"}, pre[1:]...)
	before := len(e.phone.Commands())
	if r := do(t, "OPTIONS", e.base+"/calls", "", other...); r.status != 403 || r.errMsg(t) != msgWrongOrigin {
		t.Errorf("other origin preflight: %d %s", r.status, r.body)
	}
	if r := e.post("/calls", `{"number":"1"}`, "Origin: http://evil.example"); r.status != 403 {
		t.Errorf("other origin POST: %d", r.status)
	}
	if len(e.phone.Commands()) != before {
		t.Error("a refused origin dialled")
	}
	// Our own pages stay allowed.
	if r := e.get("/calls", "Origin: "+e.base); r.status != 200 {
		t.Errorf("own origin: %d", r.status)
	}
}
