package httplimit

import (
	"bufio"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"
)

// The sweep sleeps while no read or write begins (issue 20: an open phone
// page kept it ticking through a whole call): a kept-alive connection left
// waiting for its next request is still cut by Idle, never before it, and
// the sweep ran a few times meanwhile, not once a tick.
func TestQuietSweepSleepsUntilTheDeadline(t *testing.T) {
	l := Limits{Read: 500 * time.Millisecond, Write: 500 * time.Millisecond, Idle: 2 * time.Second, HeaderBytes: 4096, Conns: 8}
	var cfg fiber.Config
	l.Apply(&cfg)
	app := fiber.New(cfg)
	app.Get("/", func(c fiber.Ctx) error { return c.SendString("ok") })
	tcp, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := l.Listener(tcp).(*listener)
	go func() { _ = app.Listener(ln, fiber.ListenConfig{DisableStartupMessage: true}) }()
	t.Cleanup(func() { _ = app.Shutdown(); tcp.Close() })

	c := dial(t, tcp.Addr().String())
	r := bufio.NewReader(c)
	get(t, c, r)
	before := ln.sweeps.Load()
	took := closedWithin(t, c, 10*time.Second)
	sweeps := ln.sweeps.Load() - before
	ticks := int64((l.Idle + ln.tick) / ln.tick)
	t.Logf("idle connection cut after %v; the sweep ran %d times meanwhile (ticking: about %d)", took, sweeps, ticks)
	if took < l.Idle {
		t.Fatalf("cut after %v, before Idle (%v)", took, l.Idle)
	}
	if sweeps > ticks/4 {
		t.Fatalf("the sweep ran %d times while nothing was read or written (ticking: %d)", sweeps, ticks)
	}
}

// A request after the sweep slept (the coarse clock stood still) gets
// deadlines from the real clock: a request that comes within Idle after a
// long pause and is then answered, and another that trickles and is cut by
// Read counted from its first byte, not from the stale clock.
func TestRequestAfterSleepStampsFromTheRealClock(t *testing.T) {
	l := Limits{Read: 300 * time.Millisecond, Write: time.Second, Idle: 3 * time.Second, HeaderBytes: 4096, Conns: 8}
	addr, _ := serve(t, l)
	c := dial(t, addr)
	r := bufio.NewReader(c)
	get(t, c, r)
	time.Sleep(time.Second) // the sweep sleeps: nothing is read or written
	// Header lines 100 ms apart: each Read ends within Read (300 ms), the
	// request as a whole within 2 × Read of its first byte.
	for _, part := range []string{"GET / HTTP/1.1\r\n", "Host: x\r\n", "\r\n"} {
		if _, err := c.Write([]byte(part)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := r.ReadString('\n')
	if err != nil || !strings.Contains(line, "200") {
		t.Fatalf("the request after the pause: %q %v", line, err)
	}
}
