package httplimit

import (
	"bufio"
	"errors"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"
)

// serve runs a fiber app with limits l on 127.0.0.1 and returns its address
// and a count of stream writers that gave up (their client stopped reading).
func serve(t *testing.T, l Limits) (string, *atomic.Int32) {
	addr, stalled, _ := serveApp(t, l)
	return addr, stalled
}

func serveApp(t *testing.T, l Limits) (string, *atomic.Int32, *fiber.App) {
	t.Helper()
	var cfg fiber.Config
	l.Apply(&cfg)
	app := fiber.New(cfg)
	var stalled atomic.Int32
	app.Get("/", func(c fiber.Ctx) error { return c.SendString("ok") })
	app.Get("/stream", func(c fiber.Ctx) error {
		return c.SendStreamWriter(func(w *bufio.Writer) {
			chunk := strings.Repeat("x", 64<<10)
			for {
				if _, err := w.WriteString(chunk); err != nil {
					stalled.Add(1)
					return
				}
				if err := w.Flush(); err != nil {
					stalled.Add(1)
					return
				}
			}
		})
	})
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = app.Listener(l.Listener(ln), fiber.ListenConfig{DisableStartupMessage: true}) }()
	t.Cleanup(func() { _ = app.Shutdown(); ln.Close() })
	return ln.Addr().String(), &stalled, app
}

// closedWithin reads from c until the server closes it; it fails the test
// when that takes longer than max.
func closedWithin(t *testing.T, c net.Conn, max time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	_ = c.SetReadDeadline(start.Add(max))
	_, err := io.Copy(io.Discard, c)
	took := time.Since(start)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("connection still open after %v", max)
	}
	return took
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp4", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

var short = Limits{Read: 300 * time.Millisecond, Write: 300 * time.Millisecond, Idle: 300 * time.Millisecond, HeaderBytes: 4096, Conns: 8}

func TestSilentAndHalfSentConnectionsAreClosed(t *testing.T) {
	addr, _ := serve(t, short)
	silent := dial(t, addr)
	half := dial(t, addr)
	if _, err := half.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")); err != nil {
		t.Fatal(err)
	}
	t.Logf("silent closed after %v", closedWithin(t, silent, 5*time.Second))
	t.Logf("half-sent closed after %v", closedWithin(t, half, 5*time.Second))
}

func TestIdleKeepAliveIsClosed(t *testing.T) {
	addr, _ := serve(t, short)
	c := dial(t, addr)
	if _, err := c.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	if err != nil || !strings.Contains(line, "200") {
		t.Fatalf("first request: %q %v", line, err)
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.Copy(io.Discard, r); err != nil {
		t.Fatalf("kept-alive connection not closed: %v", err)
	}
}

// A client that asks for a stream and stops reading: the server's write
// stalls and gives up, and the connection is closed.
func TestStalledReaderIsReleased(t *testing.T) {
	addr, stalled, app := serveApp(t, short)
	c := dial(t, addr)
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetReadBuffer(4096)
	}
	if _, err := c.Write([]byte("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for stalled.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the stream kept writing to a client that does not read")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The server let go of the connection (its descriptor and goroutine);
	// what is left in the kernel's send buffer is the kernel's. Only the
	// accept loop counts as open then.
	for app.Server().GetOpenConnectionsCount() > 1 {
		if time.Now().After(deadline) {
			t.Fatalf("server still holds %d connections", app.Server().GetOpenConnectionsCount()-1)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestHeaderSize(t *testing.T) {
	addr, _ := serve(t, short)
	c := dial(t, addr)
	big := "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 8<<10) + "\r\n\r\n"
	if _, err := c.Write([]byte(big)); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(c).ReadString('\n')
	if !strings.Contains(line, "431") {
		t.Fatalf("oversize headers: %q, want 431", line)
	}
}

// Conns: 4 held open; the fifth is refused at once with 503.
func TestConnectionCap(t *testing.T) {
	addr, _ := serve(t, Limits{Read: 5 * time.Second, Conns: 4})
	for i := 0; i < 4; i++ {
		h := dial(t, addr)
		if _, err := h.Write([]byte("G")); err != nil {
			t.Fatal(err)
		}
	}
	extra := dial(t, addr)
	_ = extra.SetReadDeadline(time.Now().Add(3 * time.Second))
	line, _ := bufio.NewReader(extra).ReadString('\n')
	if !strings.Contains(line, "503") {
		t.Fatalf("connection above the cap: %q, want 503", line)
	}
}

// The product defaults: a silent connection is closed well within 60 s.
func TestDefaultClosesSilentConnectionWithinAMinute(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the default read timeout (10 s)")
	}
	d := Default()
	for _, v := range []time.Duration{d.Read, d.Write, d.Idle} {
		if v <= 0 || v >= time.Minute {
			t.Fatalf("default limits %+v: each must be under a minute", d)
		}
	}
	addr, _ := serve(t, Limits{})
	c := dial(t, addr)
	took := closedWithin(t, c, time.Minute)
	t.Logf("silent connection closed by the defaults after %v", took)
}
