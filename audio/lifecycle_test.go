package audio

import (
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"
)

func TestConcurrentDTMFAndClose(t *testing.T) {
	e := newTestEngine(t)
	got := make(chan byte, 16)
	a, _ := pair(t, e, CodecPCMU, func(d byte) { got <- d })
	var wg sync.WaitGroup
	for _, d := range []byte("123") {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := a.SendDTMF(d); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	seen := map[byte]bool{}
	for range 3 {
		select {
		case d := <-got:
			seen[d] = true
		case <-time.After(3 * time.Second):
			t.Fatalf("digits %v", seen)
		}
	}
	if len(seen) != 3 {
		t.Fatalf("digits %v: each once, none mixed", seen)
	}
	// Closing in the middle of digits ends them with ErrClosed.
	errs := make(chan error, 2)
	for range 2 {
		go func() { errs <- a.SendDTMF('9') }()
	}
	// Close once a digit has begun (the session says so; no event announces it).
	for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(time.Millisecond) {
		a.mu.Lock()
		busy := a.dtmfBusy
		a.mu.Unlock()
		if busy {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no digit began")
		}
	}
	a.Close()
	for range 2 {
		select {
		case err := <-errs:
			if err != nil && !errors.Is(err, ErrClosed) {
				t.Fatalf("error %v", err)
			}
		case <-time.After(3 * time.Second):
			t.Fatal("SendDTMF hangs after Close")
		}
	}
	if err := a.SendDTMF('1'); !errors.Is(err, ErrClosed) {
		t.Fatalf("after close: %v", err)
	}
	if err := a.Start(a.LocalAddr(), CodecPCMU, 101); !errors.Is(err, ErrClosed) {
		t.Fatalf("start after close: %v", err)
	}
}

// TestNothingLeftRunning: an engine with calls, a tab, a conference and a
// recording leaves no goroutine behind when closed.
func TestNothingLeftRunning(t *testing.T) {
	before := runtime.NumGoroutine()
	func() {
		e, err := NewEngine(EngineConfig{Home: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		a, b := pair(t, e, CodecOpus, nil)
		c, _ := pair(t, e, CodecPCMU, nil)
		if err := e.Conference(a, c); err != nil {
			t.Fatal(err)
		}
		if _, err := b.StartRecording(t.Context()); err != nil {
			t.Fatal(err)
		}
		tab := newFakeTab(t, e.Bridge(), "tab", CodecOpus, 440)
		waitAttached(t, e.Bridge(), true)
		tab.heard.take(t, pcmRate/10)
		tab.stop()
		tab.pc.Close()
	}()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before+1 {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			n := runtime.Stack(buf, true)
			t.Fatalf("%d goroutines, %d before:\n%s", runtime.NumGoroutine(), before, buf[:n])
		}
		time.Sleep(20 * time.Millisecond)
	}
}
