package api

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/server/httplimit"
)

// The API releases a connection that sends nothing or half a request (short
// limits here; server/httplimit tests the product defaults, origins.mjs the
// binary), and refuses oversize headers with a JSON error.
func TestAPIReleasesHalfOpenConnections(t *testing.T) {
	e := newEnvCfg(t, func(c *Config) { c.Limits = httplimit.Limits{Read: 200 * time.Millisecond} })
	addr := strings.TrimPrefix(e.base, "http://")
	for _, send := range []string{"", "GET /history HTTP/1.1\r\nHost: " + addr + "\r\n"} {
		c, err := net.Dial("tcp4", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if send != "" {
			if _, err := c.Write([]byte(send)); err != nil {
				t.Fatal(err)
			}
		}
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.Copy(io.Discard, c); err != nil {
			t.Fatalf("sent %q: connection not released: %v", send, err)
		}
	}
	refused := e.counter("api_requests_refused_total")
	c, err := net.Dial("tcp4", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte("GET /history HTTP/1.1\r\nHost: " + addr + "\r\nX-Big: " + strings.Repeat("a", 9<<10) + "\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusRequestHeaderFieldsTooLarge || !strings.HasPrefix(string(body), `{"error":`) {
		t.Fatalf("oversize headers: %d %s", res.StatusCode, body)
	}
	if got := e.counter("api_requests_refused_total") - refused; got != 1 {
		t.Errorf("oversize headers counted %v times as refused, want 1", got)
	}
}
