package api

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/softphone/softphone/sipua"
)

// packQuiet is how long the backlog waits after its last event before it
// packs itself: a phone without calls then holds its 1,024 kept events
// (about 0.5 MB as frames, 0.8 MB as events before) deflated, in a few
// tens of kB (issue 20: memory back within 2 MB of idle after calls). It
// is shorter than the phone's first memory release after the last call
// (cmd/softphone freeMemQuiet), which then hands the freed pages back.
const packQuiet = time.Second

// kept is one event as GET /events sends it: its frame (id, event and
// data lines) made once when it is added, whatever number of streams send
// it.
type kept struct {
	seq   uint64
	frame []byte
}

// backlog is a ring of the latest call events: once full, an add
// overwrites the oldest in place (shifting the whole slice down cost a copy
// of 512 KiB per event, issue 20). Quiet for packQuiet, the ring is packed
// (deflated) and dropped; the next add unpacks it, and a replay reads the
// packed events without unpacking the ring. What is kept, and so what a
// Last-Event-ID replays, is the same packed or not.
type backlog struct {
	mu     sync.Mutex
	buf    []kept // in order from head once full
	head   int    // index of the oldest event once len(buf) == size
	size   int
	wake   chan struct{} // closed and replaced on every add
	first  uint64        // Seq of the oldest event ever dropped from buf + 1
	lastSq uint64        // Seq of the newest event (0: none yet)
	packed []byte        // the ring deflated while quiet; buf is nil then
	quiet  *time.Timer   // packs the ring; put off by every add
}

func newBacklog(n int) *backlog {
	return &backlog{size: n, wake: make(chan struct{})}
}

// frame is an event as the stream sends it.
func frame(e sipua.Event) []byte {
	p, _ := sipua.Flat(e)
	data, _ := json.Marshal(p)
	return fmt.Appendf(nil, "id: %d\nevent: %s\ndata: %s\n\n", e.Seq, e.Kind, data)
}

func (b *backlog) add(e sipua.Event) {
	k := kept{seq: e.Seq, frame: frame(e)}
	b.mu.Lock()
	if b.packed != nil {
		b.buf, b.head, b.packed = b.unpackLocked(), 0, nil
	}
	if len(b.buf) == b.size {
		b.first = b.buf[b.head].seq + 1
		b.buf[b.head] = k
		b.head = (b.head + 1) % b.size
	} else {
		b.buf = append(b.buf, k)
	}
	b.lastSq = k.seq
	close(b.wake)
	b.wake = make(chan struct{})
	// One timer, put off by each add (not one per add: at 50 calls/s that
	// was 200 timers a second).
	if b.quiet == nil {
		b.quiet = time.AfterFunc(packQuiet, b.pack)
	} else {
		b.quiet.Reset(packQuiet)
	}
	b.mu.Unlock()
}

// pack deflates the ring (packQuiet after the last add).
func (b *backlog) pack() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.packed != nil || len(b.buf) == 0 {
		return
	}
	var raw bytes.Buffer
	for i := range b.buf {
		k := b.buf[(b.head+i)%len(b.buf)]
		raw.Write(binary.AppendUvarint(binary.AppendUvarint(nil, k.seq), uint64(len(k.frame))))
		raw.Write(k.frame)
	}
	var z bytes.Buffer
	w, _ := flate.NewWriter(&z, flate.BestSpeed)
	_, _ = w.Write(raw.Bytes())
	if w.Close() != nil {
		return
	}
	// A copy of its own size: the buffer's spare capacity would stay held.
	b.packed = bytes.Clone(z.Bytes())
	b.buf, b.head = nil, 0
}

// unpackLocked gives the packed events in order, oldest first; mu is held.
func (b *backlog) unpackLocked() []kept {
	raw, err := io.ReadAll(flate.NewReader(bytes.NewReader(b.packed)))
	if err != nil {
		return nil // cannot happen: packed is what pack wrote
	}
	out := make([]kept, 0, b.size)
	for len(raw) > 0 {
		seq, n := binary.Uvarint(raw)
		l, m := binary.Uvarint(raw[n:])
		raw = raw[n+m:]
		out = append(out, kept{seq: seq, frame: raw[:l:l]})
		raw = raw[l:]
	}
	return out
}

// after returns the events with Seq > seq, whether events after seq were
// already lost, and a channel closed on the next add.
func (b *backlog) after(seq uint64) ([]kept, bool, <-chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []kept
	if seq >= b.lastSq {
		return nil, b.first > seq+1, b.wake // nothing new: no unpacking
	}
	ring, head := b.buf, b.head
	if b.packed != nil {
		ring, head = b.unpackLocked(), 0 // read, not kept: the ring stays packed
	}
	for i := range ring {
		if k := ring[(head+i)%len(ring)]; k.seq > seq {
			out = append(out, k)
		}
	}
	return out, b.first > seq+1, b.wake
}

func (b *backlog) last() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.lastSq == 0 {
		return b.first
	}
	return b.lastSq
}
