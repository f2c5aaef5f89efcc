package api

import (
	"bytes"
	"encoding/json"
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
	// The next event waits beside the packed ring (an add never unpacks):
	// the oldest is dropped, the new one last.
	next := callEvents(2200, 1)[0]
	b.add(next)
	ks, lost, _ := b.after(0)
	if len(ks) != backlogSize || ks[0].seq != 1177 || ks[len(ks)-1].seq != 2200 || !lost ||
		!bytes.Equal(ks[len(ks)-1].frame, frame(next)) {
		t.Errorf("after the next event: %d kept, %d..%d, lost %v", len(ks), ks[0].seq, ks[len(ks)-1].seq, lost)
	}
	if ks, lost, _ := b.after(1177); len(ks) != backlogSize-1 || lost {
		t.Errorf("after 1177: %d kept, lost %v", len(ks), lost)
	}
	if _, p := b.held(); p == 0 {
		t.Error("an add unpacked the ring")
	}
	// Quiet again, the tail is packed in with the ring.
	if !testpeer.WaitFor(10*time.Second, func() bool { return b.tailLen() == 0 }) {
		t.Fatal("the tail was not packed in")
	}
	if ks2, lost2, _ := b.after(0); len(ks2) != len(ks) || ks2[0].seq != 1177 || !lost2 || !bytes.Equal(ks2[len(ks2)-1].frame, ks[len(ks)-1].frame) {
		t.Errorf("after packing the tail in: %d kept from %d, lost %v", len(ks2), ks2[0].seq, lost2)
	}
	// A whole ring of events while packed: the packed ones are all
	// dropped, and what is kept is the ring of the new ones.
	more := callEvents(5000, backlogSize/3+1)[:backlogSize]
	for _, e := range more {
		b.add(e)
	}
	if _, p := b.held(); p != 0 {
		t.Error("still packed after a whole ring of events")
	}
	ks, lost, _ = b.after(2200)
	if len(ks) != backlogSize || ks[0].seq != 5000 || ks[len(ks)-1].seq != more[len(more)-1].Seq || lost {
		t.Errorf("after a whole ring: %d kept from %d, lost %v", len(ks), ks[0].seq, lost)
	}
	if _, lost, _ := b.after(2199); !lost {
		t.Error("after 2199: 2200 was dropped, not said so")
	}
}

// tailLen is how many events wait beside the packed ring.
func (b *backlog) tailLen() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.tail)
}

// A frame's data is what json.Marshal makes of the flat object, byte for
// byte, whatever the strings hold.
func TestFrameDataIsJSONMarshal(t *testing.T) {
	evs := callEvents(1, 3)
	odd := []string{"", "plain", `quote " and \ backslash`, "<b>&amp;</b>", "tab\there\nnewline\r", "\x00\x1f\x7f",
		"Jürgen Groß 東京", "line\u2028sep\u2029", "bad \xff\xfe utf8", "\ufffd kept", "emoji 😀"}
	for i, v := range odd {
		e := evs[i%len(evs)]
		e.Call.Name, e.Call.Number, e.Call.URI, e.Call.Account = v, v+"1", "sip:"+v, v
		evs = append(evs, e)
	}
	for _, e := range evs {
		p, _ := sipua.Flat(e)
		want, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendFlat(nil, p); !bytes.Equal(got, want) {
			t.Errorf("appendFlat\n%s\nwant\n%s", got, want)
		}
		f := frame(e)
		if wantF := fmt.Appendf(nil, "id: %d\nevent: %s\ndata: %s\n\n", e.Seq, e.Kind, want); !bytes.Equal(f, wantF) {
			t.Errorf("frame\n%q\nwant\n%q", f, wantF)
		}
	}
	// Another shape of map: json.Marshal's own output.
	p := map[string]string{"a": "1", "event": "x"}
	want, _ := json.Marshal(p)
	if got := appendFlat(nil, p); !bytes.Equal(got, want) {
		t.Errorf("appendFlat of another map: %s", got)
	}
}
