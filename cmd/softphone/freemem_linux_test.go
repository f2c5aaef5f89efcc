package main

import (
	"bufio"
	"bytes"
	"context"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/softphone/softphone/internal/gcnotice"
	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/sipua"
)

// rodataAnchor is a constant: its bytes are in the executable's rodata.
const rodataAnchor = "anchor"

// touchExecutable reads a byte of every page of the test binary's
// read-only mappings, so all of it is resident.
func touchExecutable(t *testing.T) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	smaps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	// A pointer into the executable's read-only data, from which every
	// page of its mappings is reached.
	base := unsafe.Pointer(unsafe.StringData(rodataAnchor))
	sum := byte(0)
	sc := bufio.NewScanner(bytes.NewReader(smaps))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 6 || f[5] != exe || f[1][1] != '-' {
			continue
		}
		lo, hi, _ := strings.Cut(f[0], "-")
		a, _ := strconv.ParseUint(lo, 16, 64)
		b, _ := strconv.ParseUint(hi, 16, 64)
		for p := a; p < b; p += 4096 {
			sum += *(*byte)(unsafe.Add(base, int(p)-int(uintptr(base))))
		}
	}
	touchedSum += sum // kept, so the reads are not left out
}

var touchedSum byte

// TestIdleGCUnmapsExecutable: the product's wiring, in a real process. An
// idle phone whose executable was mapped back (here: all of it) unmaps it
// after the next garbage collection the runtime tells of; the file-backed
// RSS falls. While a call is up, a collection unmaps nothing.
func TestIdleGCUnmapsExecutable(t *testing.T) {
	gcs := gcnotice.Start()
	defer gcs.Stop()
	events := make(chan sipua.Event)
	freed := make(chan release, 16)
	var callUp, releasedInCall atomic.Bool // set while the keeper has the call as up
	var touched atomic.Bool                // set once the executable is mapped again at the end
	releasedAfterTouch := make(chan struct{}, 1)
	hook := releaseWhenIdle(slog.New(slog.DiscardHandler), func() {})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	defer func() { cancel(); <-done }()
	go func() {
		defer close(done)
		ts := freeMemTimes{start: time.Millisecond, after: []time.Duration{time.Millisecond}, idleGCGap: 0, now: time.Now}
		freeMemAfterCalls(ctx, events, gcs.C(), ts, func(r release) {
			if r == releaseIdleGC && callUp.Load() {
				releasedInCall.Store(true)
			}
			after := touched.Load() // the release below comes after the touch
			hook(r)
			if r == releaseIdleGC && after {
				select {
				case releasedAfterTouch <- struct{}{}:
				default:
				}
			}
			select {
			case freed <- r:
			default: // the test reads only some
			}
		})
	}()
	wait := func(want release) {
		t.Helper()
		for {
			select {
			case r := <-freed:
				if r == want {
					return
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("no release %d", want)
			}
		}
	}
	wait(releaseLast) // the start's

	// A call is up: collections release nothing.
	events <- sipua.Event{Kind: sipua.EventCallStarted, Call: sipua.Call{ID: "a", State: sipua.StateActive}}
	callUp.Store(true) // from here until the end is sent, the keeper has the call as up
	touchExecutable(t)
	full := testpeer.RssFileKB(t)
	for i := 0; i < 3; i++ {
		runtime.GC()
	}
	if during := testpeer.RssFileKB(t); during < full*3/4 {
		t.Fatalf("RssFile fell from %d to %d kB while a call was up", full, during)
	}
	callUp.Store(false)
	events <- sipua.Event{Kind: sipua.EventCallEnded, Call: sipua.Call{ID: "a", State: sipua.StateEnded}}
	if releasedInCall.Load() {
		t.Fatal("released after a collection while a call was up")
	}
	wait(releaseLast) // the quiet spell after the call

	// Idle: all of the executable mapped again, then a collection.
	// (The quiet spell's own collection may be told and released before
	// this: only a release decided after the touch counts.)
	touchExecutable(t)
	full = testpeer.RssFileKB(t)
	touched.Store(true)
	runtime.GC()
	select {
	case <-releasedAfterTouch:
	case <-time.After(30 * time.Second):
		t.Fatal("no release after the idle collection")
	}
	after := testpeer.RssFileKB(t)
	t.Logf("RssFile %d kB with the executable mapped, %d kB after the idle collection's release", full, after)
	if after >= full/2 {
		t.Fatalf("RssFile %d kB after the release, %d before: the executable is still mapped", after, full)
	}
}
