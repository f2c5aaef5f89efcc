package main

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/softphone/softphone/sipua"
)

// TestOneProcDuringCalls: GOMAXPROCS is 1 from the first call's answer to
// the last connected call's end, and the default again after; ringing calls
// change nothing.
func TestOneProcDuringCalls(t *testing.T) {
	t.Setenv("GOMAXPROCS", "") // the policy leaves an explicit setting alone
	def := runtime.GOMAXPROCS(0)
	if def == 1 {
		t.Skip("one processor: nothing to change")
	}
	bus := sipua.NewBus()
	sub := bus.SubscribeOnly(64, true, callEvents)
	defer sub.Close()
	changes := make(chan int, 8)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { oneProcDuringCalls(ctx, sub, func(n int) { changes <- n }); close(done) }()
	want := func(n int) {
		t.Helper()
		select {
		case got := <-changes:
			if got != n {
				t.Fatalf("GOMAXPROCS %d, want %d", got, n)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("GOMAXPROCS not changed to %d", n)
		}
	}
	call := func(kind sipua.EventKind, id string, st sipua.CallState) {
		bus.Publish(sipua.Event{Kind: kind, Call: sipua.Call{ID: id, State: st}})
	}
	// The counting, step by step: one processor while either call is up.
	p := &procsPolicy{live: map[string]bool{}}
	steps := []struct {
		kind  sipua.EventKind
		id    string
		state sipua.CallState
		want  int
	}{
		{sipua.EventCallStarted, "a", sipua.StateRingingIn, def},
		{sipua.EventCallStateChanged, "a", sipua.StateActive, 1},
		{sipua.EventCallStarted, "b", sipua.StateDialing, 1},
		{sipua.EventCallStateChanged, "b", sipua.StateActive, 1},
		{sipua.EventCallStateChanged, "a", sipua.StateHold, 1},
		{sipua.EventCallEnded, "b", sipua.StateEnded, 1},
		{sipua.EventCallStateChanged, "a", sipua.StateConference, 1},
		{sipua.EventCallEnded, "a", sipua.StateEnded, def},
		{sipua.EventCallStarted, "c", sipua.StateRingingIn, def},
		{sipua.EventCallEnded, "c", sipua.StateEnded, def},
	}
	for i, st := range steps {
		p.see(sipua.Event{Kind: st.kind, Call: sipua.Call{ID: st.id, State: st.state}})
		if n := runtime.GOMAXPROCS(0); n != st.want {
			t.Fatalf("step %d (%s %s): GOMAXPROCS %d, want %d", i, st.kind, st.id, n, st.want)
		}
	}
	// The loop on the bus.
	call(sipua.EventCallStarted, "d", sipua.StateDialing)
	call(sipua.EventCallStateChanged, "d", sipua.StateActive)
	want(1)
	cancel() // stopping restores the default
	<-done
	want(def)
	if n := runtime.GOMAXPROCS(0); n != def {
		t.Fatalf("GOMAXPROCS %d after stop, want %d", n, def)
	}
}
