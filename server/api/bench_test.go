package api

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/glebarez/sqlite"
	"github.com/gofiber/fiber/v3"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// Load benchmarks: a Go load client with loadConns keep-alive connections
// (SOFTPHONE_LOAD_CONNS, default 8) against
// the real listener, reporting requests per second and the 99th percentile
// latency; BenchmarkConstant runs a minimal fiber server answering a
// constant on the same machine for the ratio.
//
//	unshare -n sh -c 'ip link set lo up; go test -run XXX -bench Load -benchtime 3s ./server/api'

var loadConns = func() int {
	if n, err := strconv.Atoi(os.Getenv("SOFTPHONE_LOAD_CONNS")); err == nil && n > 0 {
		return n
	}
	return 8
}()

// load sends requests to url from loadConns connections until n are done.
func load(b *testing.B, url string, n int) {
	b.Helper()
	tr := &http.Transport{MaxIdleConnsPerHost: loadConns, MaxConnsPerHost: loadConns}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	// Warm the connections.
	for i := 0; i < loadConns; i++ {
		res, err := client.Get(url)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	var next atomic.Int64
	lat := make([][]time.Duration, loadConns)
	var failed atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for w := 0; w < loadConns; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for next.Add(1) <= int64(n) {
				t := time.Now()
				res, err := client.Get(url)
				if err != nil {
					failed.Add(1)
					continue
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != 200 {
					failed.Add(1)
				}
				lat[w] = append(lat[w], time.Since(t))
			}
		}(w)
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if f := failed.Load(); f > 0 {
		b.Fatalf("%d requests failed", f)
	}
	all := slices.Concat(lat...)
	slices.Sort(all)
	p99 := all[len(all)*99/100]
	b.ReportMetric(float64(n)/elapsed.Seconds(), "req/s")
	b.ReportMetric(float64(p99.Microseconds())/1000, "p99-ms")
	b.ReportMetric(0, "ns/op")
}

func BenchmarkLoadConstant(b *testing.B) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	app := fiber.New()
	body := []byte(`[]`)
	app.Get("/", func(c fiber.Ctx) error {
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
		return c.Send(body)
	})
	go app.Listener(ln, fiber.ListenConfig{DisableStartupMessage: true})
	defer func() { ln.Close(); app.ShutdownWithTimeout(time.Second) }()
	load(b, "http://"+ln.Addr().String()+"/", max(b.N, 1000))
}

func BenchmarkLoadGetCalls(b *testing.B) {
	e := newEnv(b)
	e.phone.ring("+4930100")
	e.phone.ring("+4930101")
	load(b, e.base+"/calls", max(b.N, 1000))
}

func BenchmarkLoadGetHistory100Of100k(b *testing.B) {
	e := newEnv(b)
	fillHistory(b, filepath.Join(e.home, "softphone.db"), 100_000)
	if n := len(historyOfB(b, e)); n != 100 {
		b.Fatalf("history has %d entries", n)
	}
	load(b, e.base+"/history?limit=100", max(b.N, 200))
}

func historyOfB(b *testing.B, e *env) []map[string]any {
	var out []map[string]any
	e.get("/history?limit=100").json(b, &out)
	return out
}

// fillHistory writes n finished calls straight into the history table in one
// transaction with one prepared statement (through the store it would take
// one transaction per call).
func fillHistory(tb testing.TB, path string, n int) {
	tb.Helper()
	g, err := gorm.Open(sqlite.Open(path+"?_pragma=busy_timeout(5000)"), &gorm.Config{Logger: logger.Default.LogMode(logger.Silent)})
	if err != nil {
		tb.Fatal(err)
	}
	sqlDB, err := g.DB()
	if err != nil {
		tb.Fatal(err)
	}
	defer sqlDB.Close()
	ctx := context.Background()
	tx, err := sqlDB.BeginTx(ctx, nil)
	if err != nil {
		tb.Fatal(err)
	}
	st, err := tx.PrepareContext(ctx, `INSERT INTO history (id, call_id, seance_id, account_id, account, direction,
		number, uri, name, dialed, outcome, answered, duration_s, reason, answered_by, started_at, answered_at,
		ended_at, open, declined, jitter, loss, note, recording)
		VALUES (?, ?, ?, ?, 'alice@pbx.test', 'in', ?, ?, '', '', ?, ?, 42.5, 'remote-hangup', 'no', ?, ?, ?, 0, ?, 0, 0, '', '')`)
	if err != nil {
		tb.Fatal(err)
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	for j := 0; j < n; j++ {
		outcome := []string{"answered", "answered", "missed", "declined", "failed"}[j%5]
		start := base + int64(j)*60000
		num := fmt.Sprintf("+4930%07d", j)
		if _, err := st.ExecContext(ctx, fmt.Sprintf("00000000-0000-4000-8000-%012d", j), fmt.Sprintf("10000000-0000-4000-8000-%012d", j),
			fmt.Sprintf("20000000-0000-4000-8000-%012d", j), accountA, num, "sip:"+num+"@pbx.test", outcome,
			outcome == "answered", start, start+5000, start+50000, outcome == "declined"); err != nil {
			tb.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
}
