package main

import (
	"context"
	"testing"
	"time"

	"github.com/softphone/softphone/sipua"
)

// TestFreeMemAfterLastCall: memory is handed back after the last of two
// calls ends, not while one is still up, and once more later (when the SIP
// transactions are gone: here a second after the first).
func TestFreeMemAfterLastCall(t *testing.T) {
	bus := sipua.NewBus()
	sub := bus.SubscribeOnly(64, true, callEvents)
	defer sub.Close()
	freed := make(chan bool, 4) // whether it is the quiet spell's last release
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go freeMemAfterCalls(ctx, sub, []time.Duration{freeMemQuiet, freeMemQuiet + time.Second}, func(last bool) { freed <- last })
	call := func(kind sipua.EventKind, id string, st sipua.CallState) {
		bus.Publish(sipua.Event{Kind: kind, Call: sipua.Call{ID: id, State: st}})
	}
	call(sipua.EventCallStarted, "a", sipua.StateRingingIn)
	call(sipua.EventCallStarted, "b", sipua.StateRingingIn)
	call(sipua.EventCallStateChanged, "a", sipua.StateActive)
	call(sipua.EventCallEnded, "a", sipua.StateEnded)
	// b still rings: a quiet spell longer than freeMemQuiet frees nothing.
	select {
	case <-freed:
		t.Fatal("memory released while a call was up")
	case <-time.After(freeMemQuiet + time.Second):
	}
	call(sipua.EventCallEnded, "b", sipua.StateEnded)
	select {
	case last := <-freed:
		if last {
			t.Fatal("the first release is said to be the last")
		}
	case <-time.After(freeMemQuiet + 10*time.Second):
		t.Fatal("memory not released after the last call ended")
	}
	select {
	case last := <-freed:
		if !last {
			t.Fatal("the second release is not said to be the last")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("memory not released a second time")
	}
	// Two releases a quiet spell, no more.
	select {
	case <-freed:
		t.Fatal("memory released a third time")
	case <-time.After(2 * time.Second):
	}
}
