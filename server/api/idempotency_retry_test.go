package api

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

// TestIdempotencyRepeatAfterARefusedFirst: the first request with a key is
// refused (the phone's error) while a repeat waits for it; the repeat then
// places the call, and a later repeat of that key within the window is
// replayed, not dialled again. The refused first took the key out of the
// map while the waiting repeat still held its entry, so the call the repeat
// placed was remembered nowhere, and the next repeat dialled a second call
// (rest-api.md: same key within 10 minutes, nothing dialled; concurrent
// repeats wait for the first; a refused dial is not remembered).
func TestIdempotencyRepeatAfterARefusedFirst(t *testing.T) {
	m := newIdempotency(idempotencyWindow)
	var arrived atomic.Int32
	repeatHasEntry := make(chan struct{})
	idemWaitHook = func(string) {
		if arrived.Add(1) == 2 {
			close(repeatHasEntry)
		}
	}
	t.Cleanup(func() { idemWaitHook = nil })

	inPlace, release := make(chan struct{}), make(chan struct{})
	refused := errors.New("refused")
	var dialled atomic.Int32
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // the first: refused once the repeat holds the key's entry
		defer wg.Done()
		_, _, err := m.do("k", func() (string, error) { close(inPlace); <-release; return "", refused })
		if !errors.Is(err, refused) {
			t.Errorf("first: %v", err)
		}
	}()
	<-inPlace
	var second string
	go func() {
		defer wg.Done()
		var err error
		second, _, err = m.do("k", func() (string, error) { dialled.Add(1); return "call-2", nil })
		if err != nil {
			t.Errorf("repeat: %v", err)
		}
	}()
	<-repeatHasEntry
	close(release)
	wg.Wait()
	idemWaitHook = nil
	if second != "call-2" || dialled.Load() != 1 {
		t.Fatalf("the repeat: %q, dialled %d", second, dialled.Load())
	}
	id, replayed, err := m.do("k", func() (string, error) { dialled.Add(1); return "call-3", nil })
	if err != nil || !replayed || id != "call-2" || dialled.Load() != 1 {
		t.Fatalf("a later repeat: %q replayed=%v err=%v, dialled %d", id, replayed, err, dialled.Load())
	}
}
