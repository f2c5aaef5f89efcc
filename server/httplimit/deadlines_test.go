package httplimit

import (
	"bufio"
	"net"
	"strings"
	"testing"
	"time"
)

// The read limits as the connection keeps them itself (issue 20: fasthttp's
// own read and idle timeouts are off): a second request on a kept-alive
// connection that trickles in is cut by Read counted from its first byte,
// though each byte comes well within Idle; a client that pauses between
// requests for less than Idle is served.

func TestTricklingSecondRequestIsClosed(t *testing.T) {
	l := Limits{Read: 300 * time.Millisecond, Write: time.Second, Idle: 2 * time.Second, HeaderBytes: 4096, Conns: 8}
	addr, _ := serve(t, l)
	c := dial(t, addr)
	r := bufio.NewReader(c)
	get(t, c, r)
	// The second request: a header line a byte every 50 ms, never ending.
	if _, err := c.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		tk := time.NewTicker(50 * time.Millisecond)
		defer tk.Stop()
		for {
			select {
			case <-done:
				return
			case <-tk.C:
				if _, err := c.Write([]byte("a")); err != nil {
					return
				}
			}
		}
	}()
	took := closedWithin(t, c, 5*time.Second)
	if took >= l.Idle {
		t.Fatalf("the trickling request was cut after %v: by Idle (%v), not by Read (%v) from its first byte", took, l.Idle, l.Read)
	}
}

func TestPauseBetweenRequestsWithinIdle(t *testing.T) {
	l := Limits{Read: 100 * time.Millisecond, Write: time.Second, Idle: time.Second, HeaderBytes: 4096, Conns: 8}
	addr, _ := serve(t, l)
	c := dial(t, addr)
	r := bufio.NewReader(c)
	for range 3 {
		get(t, c, r)
		// A client's pause, three times Read and well within Idle: the
		// wait for a request has Idle, not Read.
		time.Sleep(300 * time.Millisecond)
	}
	get(t, c, r)
}

// get sends GET / on c and reads the answer's status line and body.
func get(t *testing.T, c net.Conn, r *bufio.Reader) {
	t.Helper()
	if _, err := c.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := r.ReadString('\n')
	if err != nil || !strings.Contains(line, "200") {
		t.Fatalf("answer: %q %v", line, err)
	}
	for {
		h, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if h == "\r\n" {
			break
		}
	}
	body := make([]byte, 2)
	if _, err := r.Read(body); err != nil || string(body) != "ok" {
		t.Fatalf("body %q %v", body, err)
	}
}

// TestCallerDeadlineIsKept: once the caller sets the read deadline (fasthttp
// clears it on a hijacked connection: the phone page's audio socket), the
// connection no longer applies Idle or Read to its reads.
func TestCallerDeadlineIsKept(t *testing.T) {
	raw, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := Limits{Read: 50 * time.Millisecond, Write: time.Second, Idle: 50 * time.Millisecond}.Listener(raw)
	defer ln.Close()
	client := dial(t, raw.Addr().String())
	sc, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	if err := sc.SetDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	if _, err := sc.Write([]byte("x")); err != nil { // an answer: the next read would wait with Idle
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		b := make([]byte, 1)
		_, err := sc.Read(b)
		got <- err
	}()
	// Well past Idle and Read and their ticks, the read still waits.
	select {
	case err := <-got:
		t.Fatalf("the read ended before the client sent anything: %v", err)
	case <-time.After(400 * time.Millisecond):
	}
	if _, err := client.Write([]byte("y")); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatalf("read: %v", err)
	}
}
