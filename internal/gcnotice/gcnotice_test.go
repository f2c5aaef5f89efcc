package gcnotice

import (
	"runtime"
	"testing"
	"time"
)

// wait takes what c gives within a generous bound (the cleanup runs on
// the runtime's goroutine after the sweep: soon, at no set time).
func wait(t *testing.T, c <-chan struct{}) (ok bool) {
	t.Helper()
	select {
	case _, ok = <-c:
		return ok
	case <-time.After(30 * time.Second):
		t.Fatal("no notice 30 s after a collection")
		return false
	}
}

// TestNoticeEachCycle: every collection is told, again and again (the
// sentinel is armed anew each time), and after Stop the channel closes
// at the next cycle, so nothing stays armed.
func TestNoticeEachCycle(t *testing.T) {
	n := Start()
	for i := 0; i < 5; i++ {
		runtime.GC()
		if !wait(t, n.C()) {
			t.Fatalf("cycle %d: channel closed before Stop", i)
		}
	}
	n.Stop()
	for {
		runtime.GC()
		if !wait(t, n.C()) {
			break // closed: the notices have ended
		}
		// A notice sent before Stop was seen; the next cycle closes.
	}
}

// TestNoticeWithoutForcedCollection: a cycle the runtime starts itself
// (the heap reached its goal, as when an idle phone's retries allocate)
// is told as well as runtime.GC's.
func TestNoticeWithoutForcedCollection(t *testing.T) {
	n := Start()
	defer n.Stop()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	start := ms.NumGC
	var keep [][]byte
	for i := 0; ; i++ {
		if i == 1<<20 { // 64 GB allocated: the runtime has collected many times
			t.Fatal("no notice")
		}
		select {
		case <-n.C():
			runtime.ReadMemStats(&ms)
			if ms.NumGC == start {
				t.Fatal("notice without a collection")
			}
			return
		default:
		}
		keep = append(keep, make([]byte, 64<<10))
		if len(keep) > 64 {
			keep = keep[:0]
		}
	}
}
