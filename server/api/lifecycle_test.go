package api

import (
	"net"
	"strconv"
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
