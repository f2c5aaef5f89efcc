package sipua

import (
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// TestSIPpLoadCallee: SIPp calls us at 50 calls/s, we auto-answer, SIPp
// hangs up. No call may fail, and goroutines return to their baseline.
// SIPUA_LOAD_S sets the duration (default 10 s; the figure is 60).
func TestSIPpLoadCallee(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	secs := 10
	if v, err := strconv.Atoi(getenv("SIPUA_LOAD_S")); err == nil && v > 0 {
		secs = v
	}
	acc := store.Account{ID: uuid.NewString(), Username: "alice", Domain: "127.0.0.1", Port: 9, Transport: "udp", Enabled: true}
	p := startPhone(t, acc, "", autoAnswer)
	go func() { // drain the bus: this test counts, it does not wait on events
		for range p.sub.C() {
		}
	}()
	base := runtime.NumGoroutine()
	var ms0 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	dir := testpeer.SIPpDir(t)
	n := 50 * secs
	cmd := testpeer.SIPp(t, dir, "-sn", "uac", "127.0.0.1:"+itoa(p.stackPort()), "-s", "alice",
		"-r", "50", "-m", itoa(n), "-l", "200", "-d", "200", "-p", itoa(testpeer.FreeUDPPort(t)),
		"-timeout", itoa(secs+30)+"s")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sipp: %v\n%s", err, tail(string(out)))
	}
	t.Logf("%d calls in %v", n, time.Since(start).Round(time.Millisecond))
	if !testpeer.WaitFor(15*time.Second, func() bool { return len(p.Calls()) == 0 }) {
		t.Fatalf("%d calls left", len(p.Calls()))
	}
	var now int
	if !testpeer.WaitFor(40*time.Second, func() bool { now = runtime.NumGoroutine(); return now <= base+10 }) {
		t.Fatalf("goroutines %d, baseline %d", now, base)
	}
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	if getenv("SIPUA_LOAD_S") != "" {
		// sipgo keeps finished transactions for Timer J/I (32 s); after
		// that the heap must be back near its baseline.
		settled := time.Now()
		back := testpeer.WaitFor(70*time.Second, func() bool {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			return ms.HeapAlloc < ms0.HeapAlloc+1<<20
		})
		t.Logf("heap back within 1 MiB of baseline: %v, after %v", back, time.Since(settled).Round(time.Second))
		if !back {
			t.Errorf("heap %d KiB, baseline %d KiB", ms.HeapAlloc/1024, ms0.HeapAlloc/1024)
		}
	}
	t.Logf("goroutines %d (baseline %d), heap %d KiB (baseline %d KiB)", now, base, ms.HeapAlloc/1024, ms0.HeapAlloc/1024)
}
