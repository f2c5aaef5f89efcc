package api

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/sipua"
)

// callEvents are the events of n calls as the phone publishes them (seq
// from first): started, answered, ended, with ids of their own.
func callEvents(first uint64, n int) []sipua.Event {
	var out []sipua.Event
	seq := first
	at := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	for i := range n {
		c := sipua.Call{ID: uuid.NewString(), SeanceID: uuid.NewString(), AccountID: "0b6f3c8e-5d21-4a7e-9f10-6c2d8e4b7a35",
			Account: "alice@pbx.example.com", Direction: sipua.DirIn, Number: fmt.Sprintf("+49301234%04d", i),
			Name: "Caller " + fmt.Sprint(i), URI: fmt.Sprintf("sip:+49301234%04d@pbx.example.com", i), StartedAt: at}
		for _, k := range []sipua.EventKind{sipua.EventCallStarted, sipua.EventCallStateChanged, sipua.EventCallEnded} {
			switch k {
			case sipua.EventCallStarted:
				c.State = sipua.StateRingingIn
			case sipua.EventCallStateChanged:
				c.State, c.AnsweredAt = sipua.StateActive, at.Add(2*time.Second)
			case sipua.EventCallEnded:
				c.State, c.EndedAt, c.Reason = sipua.StateEnded, at.Add(40*time.Second), sipua.ReasonRemoteHangup
			}
			out = append(out, sipua.Event{Seq: seq, Kind: k, At: at, Call: c})
			seq++
		}
		at = at.Add(time.Minute)
	}
	return out
}

// held is what the backlog holds of its events: their frames, or packed.
func (b *backlog) held() (frames, packed int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, k := range b.buf {
		frames += len(k.frame)
	}
	return frames, len(b.packed)
}

// TestBacklogPacksWhenQuiet: after its last event the /events backlog
// packs its 1,024 events into a small part of their size, and still
// replays exactly the same frames after any Last-Event-ID, with the same
// word on lost events; the next event unpacks it and drops the oldest as
// before.
func TestBacklogPacksWhenQuiet(t *testing.T) {
	b := newBacklog(backlogSize)
	evs := callEvents(1000, 400) // 1,200 events: 176 dropped
	for _, e := range evs {
		b.add(e)
	}
	seqs := []uint64{0, 999, 1100, 1175, 1176, 1500, 2198, 2199, 5000}
	type replay struct {
		frames []byte
		lost   bool
	}
	read := func() map[uint64]replay {
		m := map[uint64]replay{}
		for _, s := range seqs {
			ks, lost, _ := b.after(s)
			var all []byte
			for _, k := range ks {
				all = append(all, k.frame...)
			}
			m[s] = replay{all, lost}
		}
		return m
	}
	before := read()
	raw, _ := b.held()
	if !testpeer.WaitFor(10*time.Second, func() bool { _, p := b.held(); return p > 0 }) {
		t.Fatal("the backlog was not packed after its last event")
	}
	frames, packed := b.held()
	t.Logf("1,024 events: %d bytes of frames, packed %d bytes", raw, packed)
	if frames != 0 || packed*4 > raw {
		t.Errorf("packed backlog holds %d bytes of frames and %d packed, of %d", frames, packed, raw)
	}
	after := read()
	for _, s := range seqs {
		if !bytes.Equal(before[s].frames, after[s].frames) || before[s].lost != after[s].lost {
			t.Errorf("after %d: the packed backlog replays %d bytes (lost %v), before %d (lost %v)",
				s, len(after[s].frames), after[s].lost, len(before[s].frames), before[s].lost)
		}
	}
	if _, p := b.held(); p == 0 {
		t.Error("a replay unpacked the ring")
	}
	if b.last() != 2199 {
		t.Errorf("last %d while packed", b.last())
	}
	// The next event: unpacked, the oldest dropped, the new one last.
	next := callEvents(2200, 1)[0]
	b.add(next)
	ks, lost, _ := b.after(0)
	if len(ks) != backlogSize || ks[0].seq != 1177 || ks[len(ks)-1].seq != 2200 || !lost ||
		!bytes.Equal(ks[len(ks)-1].frame, frame(next)) {
		t.Errorf("after the next event: %d kept, %d..%d, lost %v", len(ks), ks[0].seq, ks[len(ks)-1].seq, lost)
	}
	if _, p := b.held(); p != 0 {
		t.Error("still packed after an add")
	}
}
