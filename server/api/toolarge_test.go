package api

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestTooLargeBodyAnsweredNotReset: a client sends a body above the limit
// and goes on sending it after the 413 came (as an HTTP client writing
// its request does). The phone answered without reading the body and
// closed at once, so the kernel reset the connection: the client saw
// "connection reset by peer" (a test's POST of 70,000 bytes did, now and
// then), not the 413. The close now waits for the body (httplimit.Linger):
// the client sends all of it, reads the 413, then an orderly end.
func TestTooLargeBodyAnsweredNotReset(t *testing.T) {
	e := newEnv(t)
	c, err := net.Dial("tcp", strings.TrimPrefix(e.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	const size, first = 300_000, 10_000
	// The headers and the body's first bytes: the phone answers 413 after
	// the headers, with those bytes unread.
	if _, err := io.WriteString(c, "POST /calls HTTP/1.1\r\nHost: "+strings.TrimPrefix(e.base, "http://")+
		"\r\nContent-Type: application/json\r\nContent-Length: "+itoa(size)+"\r\n\r\n"+strings.Repeat("1", first)); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(c)
	res, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(res.Body)
	if res.StatusCode != 413 || err != nil || !strings.Contains(string(body), msgTooLarge) {
		t.Fatalf("answer %d %q %v", res.StatusCode, body, err)
	}
	// The phone is done with the connection (it ends after a 413).
	if n, err := r.Read(make([]byte, 1)); n != 0 || !errors.Is(err, io.EOF) {
		t.Fatalf("after the 413: %d bytes, %v (want the end of the connection)", n, err)
	}
	// The rest of the request: a reset refused it (and, racing the answer,
	// could cost the client the 413 itself).
	if _, err := c.Write([]byte(strings.Repeat("1", size-first))); err != nil {
		t.Fatalf("sending the rest of the body after the 413: %v", err)
	}
}
