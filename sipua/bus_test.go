package sipua

import (
	"fmt"
	"runtime"
	"testing"
)

func TestBusLosslessKeepsOrderAndEverything(t *testing.T) {
	b := NewBus()
	s := b.Subscribe(1, true)
	defer s.Close()
	const n = 10000
	for i := 0; i < n; i++ {
		b.Publish(Event{Kind: EventCallUpdated})
	}
	for i := 1; i <= n; i++ {
		e := <-s.C()
		if e.Seq != uint64(i) {
			t.Fatalf("event %d has seq %d", i, e.Seq)
		}
	}
	if s.Dropped() != 0 {
		t.Fatalf("lossless subscriber dropped %d", s.Dropped())
	}
}

func TestBusBoundedDropsAndCounts(t *testing.T) {
	b := NewBus()
	s := b.Subscribe(4, false)
	defer s.Close()
	for i := 0; i < 10; i++ {
		b.Publish(Event{Kind: EventCallUpdated})
	}
	if got := s.Dropped(); got != 6 {
		t.Fatalf("dropped %d, want 6", got)
	}
	if e := <-s.C(); e.Seq != 1 {
		t.Fatalf("first kept event seq %d", e.Seq)
	}
}

func TestCallStateStrings(t *testing.T) {
	want := map[CallState]string{StateDialing: "dialing", StateRingingOut: "ringing-out", StateRingingIn: "ringing-in",
		StateActive: "active", StateHold: "hold", StateOnHold: "onhold", StateConference: "conference", StateEnded: "ended"}
	for s, w := range want {
		if s.String() != w {
			t.Errorf("%d: %q want %q", s, s.String(), w)
		}
	}
	for _, tc := range []struct {
		conf, hold, onhold bool
		want               CallState
	}{
		{false, false, false, StateActive}, {false, false, true, StateOnHold}, {false, true, true, StateHold},
		{true, true, true, StateConference}, {true, false, false, StateConference}, {false, true, false, StateHold},
	} {
		if got := connectedState(tc.conf, tc.hold, tc.onhold); got != tc.want {
			t.Errorf("%+v: got %s", tc, got)
		}
	}
}

// TestBusOrderWhileReading: events published while the subscriber reads
// (some go straight into its channel, some through its queue) arrive all
// and in order, for a lossless and a bounded subscriber.
func TestBusOrderWhileReading(t *testing.T) {
	for _, lossless := range []bool{true, false} {
		b := NewBus()
		const n = 20000
		s := b.Subscribe(n, lossless)
		done := make(chan error, 1)
		go func() {
			for i := 1; i <= n; i++ {
				if e := <-s.C(); e.Seq != uint64(i) {
					done <- fmt.Errorf("lossless %v: event %d has seq %d", lossless, i, e.Seq)
					return
				}
			}
			done <- nil
		}()
		for i := 0; i < n; i++ {
			b.Publish(Event{Kind: EventCallUpdated})
			if i%7 == 0 {
				runtime.Gosched() // let the reader catch up: the next ones go straight in
			}
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if s.Dropped() != 0 {
			t.Fatalf("lossless %v: dropped %d", lossless, s.Dropped())
		}
		s.Close()
	}
}
