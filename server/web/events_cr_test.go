package web

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/sipua"
)

// sseMessages reads a stream as an EventSource does (HTML, server-sent
// events 9.2.6: a line ends at CRLF, LF or a lone CR; a blank line
// dispatches) and sends each message's event name and data.
func sseMessages(rd *bufio.Reader, out chan<- [2]string) {
	defer close(out)
	var event, data strings.Builder
	var line []byte
	flush := func() {
		if data.Len() > 0 {
			ev := event.String()
			if ev == "" {
				ev = "message"
			}
			out <- [2]string{ev, strings.TrimSuffix(data.String(), "\n")}
		}
		event.Reset()
		data.Reset()
	}
	field := func() {
		l := string(line)
		line = line[:0]
		if l == "" {
			flush()
			return
		}
		name, value, _ := strings.Cut(l, ":")
		value = strings.TrimPrefix(value, " ")
		switch name {
		case "event":
			event.Reset()
			event.WriteString(value)
		case "data":
			data.WriteString(value + "\n")
		}
	}
	afterCR := false
	for {
		b, err := rd.ReadByte()
		if err != nil {
			return
		}
		switch {
		case b == '\n' && afterCR:
			afterCR = false
		case b == '\r':
			field()
			afterCR = true
		case b == '\n':
			field()
		default:
			afterCR = false
			line = append(line, b)
		}
	}
}

// TestEventsKeepLoneCarriageReturns: a name holding a lone CR (a contact
// imported from someone's CSV, say) is not a line break of the page's
// event stream. An EventSource ends a line at a lone CR too: the calls
// list was cut at the name, so the ringing call lost its Answer button,
// and the text after it became fields of the stream (here "retry", which
// sets how long the page waits before it reconnects).
func TestEventsKeepLoneCarriageReturns(t *testing.T) {
	r := newRig(t, nil)
	r.login()
	r.phone.mu.Lock()
	r.phone.calls = []sipua.Call{{ID: "c9", Number: "555", Name: "Bob\r\rretry: 86400000\r\revent: disk\rdata: x",
		State: sipua.StateRingingIn, Direction: sipua.DirIn, StateAt: time.Now()}}
	r.phone.mu.Unlock()
	req, _ := http.NewRequest("GET", r.origin+"/events", nil)
	req.AddCookie(r.cookie)
	res, err := (&http.Client{}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	msgs := make(chan [2]string)
	go sseMessages(bufio.NewReader(res.Body), msgs)
	for m := range msgs {
		if m[0] != "calls" {
			continue
		}
		if !strings.Contains(m[1], `id="call-c9-answer"`) || !strings.Contains(m[1], "retry: 86400000") {
			t.Fatalf("the calls event as the page reads it: %q", m[1])
		}
		return
	}
	t.Fatal("the stream ended without a calls event")
}

// TestHeadEventsLeavesTheConnectionClean: HEAD /events is the headers
// alone; the next request on the connection gets its own answer from its
// first byte. fasthttp ended the streamed answer with the empty chunk's
// CRLF although HEAD has no body.
func TestHeadEventsLeavesTheConnectionClean(t *testing.T) {
	r := newRig(t, nil)
	r.login()
	c := dialRaw(t, r.srv.Port())
	host := "127.0.0.1:" + itoa(r.srv.Port())
	cookie := r.cookie.Name + "=" + r.cookie.Value
	if _, err := c.Write([]byte("HEAD /events HTTP/1.1\r\nHost: " + host + "\r\nCookie: " + cookie + "\r\n\r\n" +
		"GET /sw.js HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
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
	if !strings.HasPrefix(string(rest), "HTTP/1.1 200 OK\r\n") {
		t.Fatalf("after HEAD /events the connection carried %q", rest[:min(len(rest), 80)])
	}
}
