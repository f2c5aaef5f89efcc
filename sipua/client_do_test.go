package sipua

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/emiago/sipgo"
	"github.com/emiago/sipgo/sip"
)

// TestDoRequestWhileStopping stops the user agent while a request waits for
// its answer, many times over: every call must give an answer or an error.
// sipgo's Do alone gave neither now and then (CI run 24 panicked reading a
// nil response in an unsubscribe at shutdown).
func TestDoRequestWhileStopping(t *testing.T) {
	hole, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer hole.Close()
	target := sip.Uri{Scheme: "sip", User: "nobody", Host: "127.0.0.1", Port: hole.LocalAddr().(*net.UDPAddr).Port}
	buf := make([]byte, 4096)
	for i := range 300 {
		ua, err := sipgo.NewUA()
		if err != nil {
			t.Fatal(err)
		}
		client, err := sipgo.NewClient(ua, sipgo.WithClientHostname("127.0.0.1"))
		if err != nil {
			t.Fatal(err)
		}
		type result struct {
			res *sip.Response
			err error
		}
		got := make(chan result, 1)
		go func() {
			req := sip.NewRequest(sip.OPTIONS, target)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			res, err := doRequest(ctx, client, req)
			got <- result{res, err}
		}()
		// The request is on the wire (so its transaction exists) before the stop.
		if _, _, err := hole.ReadFrom(buf); err != nil {
			t.Fatal(err)
		}
		ua.Close()
		r := <-got
		if r.res == nil && r.err == nil {
			t.Fatalf("round %d: neither an answer nor an error", i)
		}
	}
}
