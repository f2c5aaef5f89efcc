package audio

import "github.com/pion/rtp"

// reorderDepth is how many later packets may arrive before a missing one is
// given up for lost. In-order packets wait for nothing, so on a clean path
// this adds no delay; a swapped pair costs one packet time.
const reorderDepth = 2

// reorder puts the PBX's packets back in sequence order (a small jitter step
// on the PBX side; the playout clock is the browser's).
type reorder struct {
	started bool
	ssrc    uint32
	next    uint16
	held    []*rtp.Packet // out-of-order packets waiting, at most reorderDepth
}

// push takes one packet (which it may keep: the caller must not reuse its
// buffers) and calls emit for every packet now in order.
func (r *reorder) push(p *rtp.Packet, emit func(*rtp.Packet)) {
	seq := p.SequenceNumber
	if !r.started || p.SSRC != r.ssrc {
		// First packet, or another source (re-INVITE, transfer): its
		// numbers have nothing to do with the old ones.
		r.started, r.ssrc, r.next = true, p.SSRC, seq
		r.held = r.held[:0]
	}
	d := int16(seq - r.next)
	switch {
	case d < -100 || d > 1000:
		// The far end restarted its numbering (re-INVITE, transfer).
		r.held = r.held[:0]
		r.next = seq
	case d < 0:
		return // late: already given up, or a duplicate
	case d > 0:
		for _, h := range r.held {
			if h.SequenceNumber == seq {
				return
			}
		}
		r.held = append(r.held, p.Clone())
		if len(r.held) <= reorderDepth {
			return
		}
		// Too many waiting: the missing one is lost, skip to the oldest held.
		r.next = r.oldestHeld()
		r.drain(emit)
		return
	}
	emit(p)
	r.next = seq + 1
	r.drain(emit)
}

func (r *reorder) oldestHeld() uint16 {
	best := r.held[0].SequenceNumber
	for _, h := range r.held[1:] {
		if int16(h.SequenceNumber-best) < 0 {
			best = h.SequenceNumber
		}
	}
	return best
}

// drain emits held packets that are next in order.
func (r *reorder) drain(emit func(*rtp.Packet)) {
	for found := true; found; {
		found = false
		for i, h := range r.held {
			if h.SequenceNumber == r.next {
				emit(h)
				r.next++
				r.held = append(r.held[:i], r.held[i+1:]...)
				found = true
				break
			}
		}
	}
}
