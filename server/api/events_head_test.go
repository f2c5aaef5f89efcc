package api

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// TestHeadEventsLeavesTheConnectionClean: HEAD /events (HEAD is answered
// for every GET) is the headers alone, and the next request on the
// connection gets its own answer from its first byte. fasthttp ended the
// streamed answer with the empty chunk's CRLF although HEAD has no body:
// two bytes the client took as the start of its next answer.
func TestHeadEventsLeavesTheConnectionClean(t *testing.T) {
	e := newEnv(t)
	host := strings.TrimPrefix(e.base, "http://")
	c, err := net.Dial("tcp4", host)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "HEAD /events HTTP/1.1\r\nHost: %s\r\n\r\nGET /calls HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", host, host)
	br := bufio.NewReader(c)
	res, err := http.ReadResponse(br, &http.Request{Method: "HEAD"})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("HEAD /events: %d %v", res.StatusCode, res.Header)
	}
	rest, err := io.ReadAll(br)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(rest), "HTTP/1.1 200 OK\r\n") || !strings.HasSuffix(string(rest), "\r\n\r\n[]") {
		t.Fatalf("after HEAD /events the connection carried %q", rest)
	}
}
