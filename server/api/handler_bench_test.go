package api

import (
	"bufio"
	"fmt"
	"net"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/valyala/fasthttp"
)

// BenchmarkHandlerPair (issue 20): one GET /calls through the whole fiber
// app of the API (guard, route, handler, metrics) without a connection,
// beside a bare fiber app answering the same bytes, in alternating chunks
// on one locked thread. It reports each one's CPU time of that thread per
// request (RUSAGE_THREAD: time the thread waited for a core on a busy
// machine is not counted) and their ratio. The connection and its system
// calls cost both alike and are not in it.
//
//	go test -run XXX -bench HandlerPair ./server/api
func BenchmarkHandlerPair(b *testing.B) {
	e := newEnv(b)
	e.srv.mu.Lock()
	l := e.srv.live
	e.srv.mu.Unlock()
	phone := handlerRun(b, l.app.Handler(), fmt.Sprintf("127.0.0.1:%d", l.port), "/calls")
	app := fiber.New()
	body := []byte(`[]`)
	app.Get("/*", func(c fiber.Ctx) error {
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
		return c.Send(body)
	})
	bare := handlerRun(b, app.Handler(), "127.0.0.1:8080", "/calls")
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const chunk = 1000
	var tp, tb time.Duration
	var n int
	b.ReportAllocs()
	b.ResetTimer()
	for n < b.N {
		tp += threadCPU(b, func() { phone(chunk) })
		tb += threadCPU(b, func() { bare(chunk) })
		n += chunk
	}
	b.StopTimer()
	b.ReportMetric(float64(tp.Nanoseconds())/float64(n), "api-cpu-ns/req")
	b.ReportMetric(float64(tb.Nanoseconds())/float64(n), "bare-cpu-ns/req")
	b.ReportMetric(float64(tp)/float64(tb), "ratio")
}

// handlerRun prepares GET path with the Host header host (and a
// User-Agent, as wrk sends) for h, checks that it is answered 200, and
// returns a function serving it n times.
func handlerRun(b *testing.B, h fasthttp.RequestHandler, host, path string) func(n int) {
	// Parsed from the bytes wrk sends, as the server does: the raw headers
	// are kept then.
	var req fasthttp.Request
	raw := "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nUser-Agent: wrk\r\n\r\n"
	if err := req.Read(bufio.NewReader(strings.NewReader(raw))); err != nil {
		b.Fatal(err)
	}
	ctx := new(fasthttp.RequestCtx)
	ctx.Init(&req, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000}, nil)
	h(ctx)
	if ctx.Response.StatusCode() != 200 {
		b.Fatalf("GET %s: %d %s", path, ctx.Response.StatusCode(), ctx.Response.Body())
	}
	return func(n int) {
		for range n {
			ctx.Response.Reset()
			req.CopyTo(&ctx.Request)
			h(ctx)
		}
	}
}

// threadCPU is the CPU time of the calling (locked) thread that f takes.
func threadCPU(b *testing.B, f func()) time.Duration {
	var r0, r1 syscall.Rusage
	const rusageThread = 1 // RUSAGE_THREAD, Linux
	if err := syscall.Getrusage(rusageThread, &r0); err != nil {
		b.Fatal(err)
	}
	f()
	if err := syscall.Getrusage(rusageThread, &r1); err != nil {
		b.Fatal(err)
	}
	return time.Duration(r1.Utime.Nano()+r1.Stime.Nano()-r0.Utime.Nano()-r0.Stime.Nano()) * time.Nanosecond
}
