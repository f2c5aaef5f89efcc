package sipua

import (
	"sync"
	"testing"
)

// A tap sees every event it keeps, in order, by the time Publish returns,
// from publishers on many goroutines; after untap it sees none.
func TestBusTapEveryEventInOrder(t *testing.T) {
	b := NewBus()
	var seqs []uint64
	untap := b.Tap(func(e Event) bool { return e.Kind == EventCallEnded }, func(e Event) { seqs = append(seqs, e.Seq) })
	all := 0
	untapAll := b.Tap(nil, func(Event) { all++ })
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				kind := EventCallStarted
				if i%2 == 1 {
					kind = EventCallEnded
				}
				b.Publish(Event{Kind: kind})
			}
		}()
	}
	wg.Wait()
	if len(seqs) != 8*250 || all != 8*500 {
		t.Fatalf("the taps saw %d ends and %d events, want %d and %d", len(seqs), all, 8*250, 8*500)
	}
	for i := 1; i < len(seqs); i++ {
		if seqs[i] <= seqs[i-1] {
			t.Fatalf("tap saw seq %d after %d", seqs[i], seqs[i-1])
		}
	}
	untap()
	e := b.Publish(Event{Kind: EventCallEnded})
	if seqs[len(seqs)-1] == e.Seq || all != 8*500+1 {
		t.Fatalf("after untap: last seen %d (published %d); the other tap saw %d", seqs[len(seqs)-1], e.Seq, all)
	}
	untapAll()
	b.Publish(Event{Kind: EventCallEnded})
	if all != 8*500+1 {
		t.Fatalf("after both untaps a tap saw %d events", all)
	}
}

// Taps and subscribers get the same events: a tap does not take them from
// a subscription.
func TestBusTapBesideSubscribers(t *testing.T) {
	b := NewBus()
	s := b.Subscribe(16, true)
	defer s.Close()
	n := 0
	defer b.Tap(nil, func(Event) { n++ })()
	for i := 0; i < 10; i++ {
		b.Publish(Event{Kind: EventCallUpdated})
	}
	for i := 1; i <= 10; i++ {
		if e := <-s.C(); e.Seq != uint64(i) {
			t.Fatalf("subscriber got seq %d, want %d", e.Seq, i)
		}
	}
	if n != 10 {
		t.Fatalf("tap saw %d events, want 10", n)
	}
}
