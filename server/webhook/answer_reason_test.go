package webhook

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/store"
)

// TestLongAnswerReasonNotKept: a receiver (a broken proxy, a hostile host)
// answers 503 with a reason phrase of 60,000 bytes, within the 64 KiB an
// answer's header may have. What an attempt's failure says is kept in the
// outbox event (its last error) and in the delivery log, shown on the
// Settings page and in the log: it was kept whole, 60 KB per event waiting
// for its retry (the outbox holds 10,000) and per line of the log (1,000).
// Now it is cut to errTextMax bytes.
func TestLongAnswerReasonNotKept(t *testing.T) {
	reason := strings.Repeat("é", 30_000) // 60,000 bytes: a cut must keep UTF-8 whole
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					if _, err := io.Copy(io.Discard, req.Body); err != nil { // the next request follows it
						return
					}
					if _, err := c.Write([]byte("HTTP/1.1 503 " + reason + "\r\nContent-Length: 0\r\n\r\n")); err != nil {
						return
					}
				}
			}()
		}
	}()
	r := newRig(t, settingsFor("http://"+ln.Addr().String()+"/hook", "POST"), func(c *Config) {
		c.MaxAge = 300 * time.Millisecond // given up soon: its line in the delivery log
	})
	newCall(r.bus, sipua.DirIn, "5")
	var d []store.Delivery
	defer func() {
		t.Logf("delivered %d failed %d outbox %d", r.cnt.delivered.Load(), r.cnt.failed.Load(), r.outboxLen(t))
	}()
	eventually(t, "the event given up", func() bool {
		d, _ = r.s.Deliveries(context.Background(), 10)
		return len(d) == 1
	})
	e := d[0].LastError
	if len(e) > errTextMax || !utf8.ValidString(e) || !strings.HasPrefix(e, "given up after") || !strings.Contains(e, "answered 503 éé") {
		t.Errorf("delivery log: %d bytes, valid UTF-8 %v: %.120q", len(e), utf8.ValidString(e), e)
	}
}
