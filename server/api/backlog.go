package api

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"io"
	"slices"
	"strconv"
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
// (deflated) and dropped; the events added after that wait in a tail beside
// it, and the next pack merges them in, so an add never unpacks (it runs
// inside the phone's Publish, a bus tap: issue 20). A replay reads the
// packed events and the tail without unpacking the ring. What is kept, and
// so what a Last-Event-ID replays, is the same packed or not.
type backlog struct {
	mu     sync.Mutex
	buf    []kept // in order from head once full; nil while packed
	head   int    // index of the oldest event once len(buf) == size
	size   int
	wake   chan struct{} // closed and replaced on every add
	first  uint64        // Seq of the newest event dropped so far + 1
	lastSq uint64        // Seq of the newest event (0: none yet)
	packed []byte        // the ring deflated while quiet; buf is nil then
	packSq uint64        // Seq of the newest packed event
	tail   []kept        // events added while packed, oldest first (fewer than size)
	quiet  *time.Timer   // packs the ring; put off by every add
}

func newBacklog(n int) *backlog {
	return &backlog{size: n, wake: make(chan struct{})}
}

// frame is an event as the stream sends it.
func frame(e sipua.Event) []byte {
	p, _ := sipua.Flat(e)
	b := append(make([]byte, 0, 640), "id: "...)
	b = strconv.AppendUint(b, e.Seq, 10)
	b = append(append(append(b, "\nevent: "...), e.Kind...), "\ndata: "...)
	return append(appendFlat(b, p), "\n\n"...)
}

func (b *backlog) add(e sipua.Event) {
	k := kept{seq: e.Seq, frame: frame(e)}
	b.mu.Lock()
	switch {
	case b.packed != nil:
		b.tail = append(b.tail, k)
		if len(b.tail) == b.size { // every packed event is older than these: all dropped
			b.first = max(b.first, b.packSq+1)
			b.buf, b.head, b.packed, b.tail = b.tail, 0, nil, nil
		}
	case len(b.buf) == b.size:
		b.first = b.buf[b.head].seq + 1
		b.buf[b.head] = k
		b.head = (b.head + 1) % b.size
	default:
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

// pack deflates the ring (packQuiet after the last add), with the events
// that waited in the tail of an earlier pack.
func (b *backlog) pack() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.packed != nil {
		if len(b.tail) == 0 {
			return
		}
		b.buf, b.first = keptOf(b.packed, b.tail, b.first, b.size)
		b.head, b.packed, b.tail = 0, nil, nil
	}
	if len(b.buf) == 0 {
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
	b.packed, b.packSq = bytes.Clone(z.Bytes()), b.lastSq
	b.buf, b.head = nil, 0
}

// keptOf gives the events kept while packed, oldest first: the newest of
// the packed ones that the tail leaves room for (of size), then the tail;
// and first as it is with the others dropped.
func keptOf(packed []byte, tail []kept, first uint64, size int) ([]kept, uint64) {
	raw, err := io.ReadAll(flate.NewReader(bytes.NewReader(packed)))
	if err != nil {
		return slices.Clone(tail), first // cannot happen: packed is what pack wrote
	}
	out := make([]kept, 0, size)
	for len(raw) > 0 {
		seq, n := binary.Uvarint(raw)
		l, m := binary.Uvarint(raw[n:])
		raw = raw[n+m:]
		out = append(out, kept{seq: seq, frame: raw[:l:l]})
		raw = raw[l:]
	}
	if drop := len(out) + len(tail) - size; drop > 0 {
		first = max(first, out[drop-1].seq+1)
		out = out[drop:]
	}
	return append(out, tail...), first
}

// after returns the events with Seq > seq, whether events after seq were
// already lost, and a channel closed on the next add. A packed ring is read
// outside the lock (an add, inside the phone's Publish, never waits for
// the unpacking) and stays packed.
func (b *backlog) after(seq uint64) ([]kept, bool, <-chan struct{}) {
	b.mu.Lock()
	if seq >= b.lastSq {
		defer b.mu.Unlock()
		return nil, b.first > seq+1, b.wake // nothing new: no unpacking
	}
	var out []kept
	if b.packed == nil {
		defer b.mu.Unlock()
		for i := range b.buf {
			if k := b.buf[(b.head+i)%len(b.buf)]; k.seq > seq {
				out = append(out, k)
			}
		}
		return out, b.first > seq+1, b.wake
	}
	packed, tail, first, wake := b.packed, slices.Clone(b.tail), b.first, b.wake
	b.mu.Unlock()
	ring, first := keptOf(packed, tail, first, b.size)
	for _, k := range ring {
		if k.seq > seq {
			out = append(out, k)
		}
	}
	return out, first > seq+1, wake
}

func (b *backlog) last() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.lastSq == 0 {
		return b.first
	}
	return b.lastSq
}
