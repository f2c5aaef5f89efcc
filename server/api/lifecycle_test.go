package api

import (
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/softphone/softphone/store"
)

func refusesConnections(addr string) bool {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return true
	}
	c.Close()
	return false
}

// Off after installation; switching on starts it, off stops it, a new port
// moves it, integration.enabled=false stops it too; all without restarting.
func TestSwitchOnOffAndPortWhileRunning(t *testing.T) {
	e := newEnv(t, func(s *store.Settings) { s.API.Enabled = false })
	if a := e.srv.Addr(); a != "" {
		t.Fatalf("listening while off: %s", a)
	}
	port := e.set.Get().API.Port
	addr := "127.0.0.1:" + strconv.Itoa(port)
	if !refusesConnections(addr) {
		t.Fatal("port answers while off")
	}

	e.update(func(s *store.Settings) { s.API.Enabled = true })
	if got := e.waitAddr(func(a string) bool { return a != "" }); got != addr {
		t.Fatalf("on at %s, want %s", got, addr)
	}
	e.base = "http://" + addr
	if r := e.get("/accounts"); r.status != 200 {
		t.Fatalf("after switching on: %d", r.status)
	}

	newPort := freePort(t)
	e.update(func(s *store.Settings) { s.API.Port = newPort })
	newAddr := "127.0.0.1:" + strconv.Itoa(newPort)
	e.waitAddr(func(a string) bool { return a == newAddr })
	if !refusesConnections(addr) {
		t.Error("old port still answers after the move")
	}
	e.base = "http://" + newAddr
	if r := e.get("/accounts"); r.status != 200 {
		t.Fatalf("after the move: %d", r.status)
	}

	e.update(func(s *store.Settings) { s.Integration.Enabled = false })
	e.waitAddr(func(a string) bool { return a == "" })
	if !refusesConnections(newAddr) {
		t.Error("answers with the Integration module off")
	}
	e.update(func(s *store.Settings) { s.Integration.Enabled = true })
	e.waitAddr(func(a string) bool { return a == newAddr })

	e.update(func(s *store.Settings) { s.API.Enabled = false })
	e.waitAddr(func(a string) bool { return a == "" })
	if !refusesConnections(newAddr) {
		t.Error("answers after switching off")
	}

	// Quickly on and off again: the listener must really be gone.
	for i := 0; i < 5; i++ {
		e.update(func(s *store.Settings) { s.API.Enabled = true })
		e.update(func(s *store.Settings) { s.API.Enabled = false })
	}
	e.waitSettings(func(s *store.Settings) bool { return !s.API.Enabled })
	e.waitAddr(func(a string) bool { return a == "" })
	waitFor(t, func() bool { return refusesConnections(newAddr) })
}

// A port taken by another program: the API keeps trying and starts once it
// is free.
func TestPortTakenThenFreed(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	taken := ln.Addr().(*net.TCPAddr).Port
	e := newEnv(t, func(s *store.Settings) { s.API.Enabled = false })
	e.update(func(s *store.Settings) { s.API.Enabled, s.API.Port = true, taken })
	e.waitSettings(func(s *store.Settings) bool { return s.API.Enabled })
	if a := e.srv.Addr(); a != "" {
		t.Fatalf("listening on a taken port: %s", a)
	}
	ln.Close()
	e.waitAddr(func(a string) bool { return a == "127.0.0.1:"+strconv.Itoa(taken) })
}

// The API can move and switch itself off through PATCH /settings: the answer
// still arrives on the old listener.
func TestPatchSettingsMovesItself(t *testing.T) {
	e := newEnv(t)
	e.setToken()
	newPort := freePort(t)
	r := do(t, "PATCH", e.base+"/settings", `{"api":{"port":`+strconv.Itoa(newPort)+`}}`, bearer(token))
	if r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	e.waitAddr(func(a string) bool { return a == "127.0.0.1:"+strconv.Itoa(newPort) })
	e.base = "http://127.0.0.1:" + strconv.Itoa(newPort)
	if r := do(t, "PATCH", e.base+"/settings", `{"api":{"enabled":false}}`, bearer(token)); r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	e.waitAddr(func(a string) bool { return a == "" })
}

// A body far above the limit is refused by fasthttp before routing; the
// answer is still the JSON 413.
func TestHugeBody(t *testing.T) {
	e := newEnv(t)
	total, refused := e.counter("api_requests_total"), e.counter("api_requests_refused_total")
	big := `{"number":"` + strings.Repeat("1", 2<<20) + `"}`
	req, _ := http.NewRequest("POST", e.base+"/calls", strings.NewReader(big))
	req.Header.Set("Content-Type", "application/json")
	res, err := apiClient(t).Do(req)
	if err != nil {
		t.Skipf("connection closed while sending: %v", err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 413 || !strings.Contains(string(b), msgTooLarge) {
		t.Fatalf("%d %s", res.StatusCode, b)
	}
	if len(e.phone.Commands()) != 0 {
		t.Fatal("dialled")
	}
	if e.counter("api_requests_total") != total+1 || e.counter("api_requests_refused_total") != refused+1 {
		t.Errorf("counted %v/%v", e.counter("api_requests_total")-total, e.counter("api_requests_refused_total")-refused)
	}
}
