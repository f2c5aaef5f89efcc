package api

import (
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/softphone/softphone/store"
)

// Bound at start, no retry timer is armed; moved to a port taken by another
// program, it is tried again until it is free; bound again, none is armed (it ticked every retryEvery for the life
// of the process: issue 20).
func TestBindRetryOnlyWhileUnbound(t *testing.T) {
	port := freePort(t)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	taken, err := net.Listen("tcp4", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	var mu sync.Mutex
	var heard []bool
	e := newEnvCfg(t, func(c *Config) {
		c.retrying = func(armed bool) {
			mu.Lock()
			heard = append(heard, armed)
			mu.Unlock()
		}
	})
	// waitLast waits until the last apply said want (polled like waitAddr).
	waitLast := func(want bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			mu.Lock()
			ok := len(heard) > 0 && heard[len(heard)-1] == want
			got := append([]bool(nil), heard...)
			mu.Unlock()
			if ok {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("retry armed after each apply: %v; want the last %v", got, want)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	waitLast(false)                                         // bound at start
	e.update(func(s *store.Settings) { s.API.Port = port }) // moved to a port another program holds
	waitLast(true)
	if a := e.srv.Addr(); a == addr {
		t.Fatalf("listening at %s, a port taken by another program", a)
	}
	taken.Close()
	if got := e.waitAddr(func(a string) bool { return a != "" }); got != addr {
		t.Fatalf("listening at %s, want %s", got, addr)
	}
	waitLast(false)
}
