package httplimit

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"
)

// TestEventStreamOutlivesTheDeadlines: a long-lived event stream (the
// pages' /events) keeps delivering its heartbeats long past the request
// (Read) and idle (Idle) deadlines while the client reads, also while other
// connections come and go beside it.
func TestEventStreamOutlivesTheDeadlines(t *testing.T) {
	l := Limits{Read: 100 * time.Millisecond, Write: 200 * time.Millisecond, Idle: 150 * time.Millisecond}
	var cfg fiber.Config
	l.Apply(&cfg)
	app := fiber.New(cfg)
	app.Get("/", func(c fiber.Ctx) error { return c.SendString("ok") })
	app.Get("/events", func(c fiber.Ctx) error {
		c.Set("Content-Type", "text/event-stream")
		return c.SendStreamWriter(func(w *bufio.Writer) {
			tk := time.NewTicker(20 * time.Millisecond) // the heartbeat, shortened
			defer tk.Stop()
			for i := 0; ; i++ {
				if _, err := fmt.Fprintf(w, "event: beat\ndata: %d\n\n", i); err != nil || w.Flush() != nil {
					return
				}
				<-tk.C
			}
		})
	})
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = app.Listener(l.Listener(ln), fiber.ListenConfig{DisableStartupMessage: true}) }()
	t.Cleanup(func() { _ = app.Shutdown(); ln.Close() })
	addr := ln.Addr().String()

	// Other clients: kept-alive connections that send a request now and then
	// and otherwise sit idle until the server closes them.
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			c, err := net.Dial("tcp4", addr)
			if err != nil {
				return
			}
			_, _ = c.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
			buf := make([]byte, 4096)
			for {
				if _, err := c.Read(buf); err != nil {
					break
				}
			}
			c.Close()
		}
	}()

	c, err := net.Dial("tcp4", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte("GET /events HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(c)
	// 150 heartbeats: about 3 s, thirty times the request deadline and twenty
	// times the idle one. A gap of a whole second is a stalled stream (the
	// writer sends every 20 ms).
	for n := 0; n < 150; {
		_ = c.SetReadDeadline(time.Now().Add(time.Second))
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("the stream ended after %d heartbeats: %v", n, err)
		}
		if strings.HasPrefix(line, "event: beat") {
			n++
		}
	}
}
