package web

import (
	"bufio"
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
