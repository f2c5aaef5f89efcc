package api

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/server/httplimit"
)

// TestAnnouncedLargeBodyIsNotAwaited: a request that announces a body above
// 64 KiB is answered 413 at once, before a byte of the body arrives. fasthttp
// reads a body whole before any handler, into a buffer of the announced
// size: with its limit at 1 MiB, each such connection (headers only, a
// hundred bytes from any local program) held 1 MiB until the request's read
// limit ran out (408), 1 GiB for the 1,024 connections a port takes. A body
// of exactly 64 KiB still reaches the handler.
func TestAnnouncedLargeBodyIsNotAwaited(t *testing.T) {
	e := newEnvCfg(t, func(c *Config) { c.Limits = httplimit.Limits{Read: 3 * time.Second} })
	host := strings.TrimPrefix(e.base, "http://")
	send := func(c net.Conn, length int, body string) (int, string) {
		t.Helper()
		fmt.Fprintf(c, "POST /calls HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", host, length, body)
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		var r resp
		r.body = b
		return res.StatusCode, r.errMsg(t)
	}
	conns := make([]net.Conn, 20)
	for i := range conns {
		c, err := net.Dial("tcp4", host)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns[i] = c
	}
	for _, c := range conns {
		if st, msg := send(c, 1000000, "{"); st != 413 || msg != msgTooLarge {
			t.Fatalf("1,000,000 bytes announced: %d %q", st, msg)
		}
	}
	c, err := net.Dial("tcp4", host)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	body := `{"number":""}`
	body += strings.Repeat(" ", bodyLimit-len(body))
	if st, msg := send(c, bodyLimit, body); st != 400 || msg != msgNoNumber {
		t.Fatalf("a body of 64 KiB: %d %q", st, msg)
	}
	if len(e.phone.Commands()) != 0 {
		t.Fatalf("dialled: %v", e.phone.Commands())
	}
}

// TestMalformedRequestNotEchoed: a request fasthttp cannot parse is
// answered 400 in words of our own. Its parse error quoted the request's
// headers back, a token among them, with the size of its buffer.
func TestMalformedRequestNotEchoed(t *testing.T) {
	e := newEnv(t)
	host := strings.TrimPrefix(e.base, "http://")
	for _, req := range []string{
		"GET /calls HTTP/1.1\r\nHost: " + host + "\r\nAuthorization: Bearer " + token + "\r\nX-Odd: \x01\r\n\r\n",
		"GET /ca lls HTTP/1.1\r\nHost: " + host + "\r\nAuthorization: Bearer " + token + "\r\n\r\n",
	} {
		c, err := net.Dial("tcp4", host)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := c.Write([]byte(req)); err != nil {
			t.Fatal(err)
		}
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		r := resp{body: b}
		if res.StatusCode != 400 || r.errMsg(t) != msgBadRequest || strings.Contains(string(b), token) {
			t.Errorf("%q: %d %s", req, res.StatusCode, b)
		}
	}
}
