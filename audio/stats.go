package audio

import (
	"sync"
	"time"
)

// Stats are one session's reception figures toward the PBX.
type Stats struct {
	Codec           string
	Jitter          float64 // ms, RFC 3550 A.8 interarrival jitter
	Loss            float64 // fraction 0..1 of expected packets not received (RFC 3550 A.3)
	RTT             float64 // ms, from RTCP receiver reports (RFC 3550 6.4.1); 0 when unknown
	PacketsSent     uint64
	PacketsReceived uint64
}

// rxStats follows the far end's stream: extended sequence numbers for loss
// and the transit-time variation for jitter.
type rxStats struct {
	mu       sync.Mutex
	epoch    time.Time
	started  bool
	ssrc     uint32
	baseSeq  uint32
	maxSeq   uint16
	cycles   uint32
	received uint64
	transit  int64
	jitter   float64 // timestamp units
	clock    uint32

	// for RTCP receiver reports: the state at the last report
	expPrior, recPrior uint64
	lastSR             uint32 // middle 32 bits of the last SR's NTP time
	lastSRAt           time.Time
}

func newRxStats() *rxStats { return &rxStats{epoch: time.Now()} }

// update counts one packet; jitter is false for a telephone-event packet,
// whose timestamp stays at the event's start (RFC 4733 2.5.1.2), so its
// transit time says nothing about the path, and which counts only within
// the audio's own stream (a gateway may send events from another SSRC).
func (r *rxStats) update(ssrc uint32, seq uint16, ts uint32, now time.Time, clock uint32, jitter bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !jitter && (!r.started || ssrc != r.ssrc || clock != r.clock) {
		return
	}
	if !r.started || ssrc != r.ssrc || clock != r.clock {
		// A new source (re-INVITE, transfer): start counting again.
		r.started, r.ssrc, r.baseSeq, r.maxSeq, r.cycles = true, ssrc, uint32(seq), seq, 0
		r.clock, r.received, r.jitter, r.expPrior, r.recPrior = clock, 1, 0, 0, 0
		r.lastSR, r.lastSRAt = 0, time.Time{} // the old source's report says nothing of this one
		r.transit = r.arrival(now) - int64(ts)
		return
	}
	r.received++
	if d := seq - r.maxSeq; d > 0 && d < 0x8000 {
		if seq < r.maxSeq {
			r.cycles += 1 << 16
		}
		r.maxSeq = seq
	}
	if !jitter {
		return
	}
	transit := r.arrival(now) - int64(ts)
	d := transit - r.transit
	r.transit = transit
	if d < 0 {
		d = -d
	}
	// Wrap of the 32-bit timestamp: ignore absurd jumps.
	if d < int64(clock)*10 {
		r.jitter += (float64(d) - r.jitter) / 16
	}
}

func (r *rxStats) arrival(now time.Time) int64 {
	return now.Sub(r.epoch).Nanoseconds() * int64(r.clock) / int64(time.Second)
}

func (r *rxStats) expected() uint64 {
	return uint64(r.cycles) + uint64(r.maxSeq) - uint64(r.baseSeq) + 1
}

// source is the SSRC of the far end's audio stream now counted (ok false
// before its first packet).
func (r *rxStats) source() (ssrc uint32, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ssrc, r.started
}

// snapshot gives jitter in ms and the loss fraction.
func (r *rxStats) snapshot() (jitterMs, loss float64, received uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.started || r.clock == 0 {
		return 0, 0, 0
	}
	jitterMs = r.jitter * 1000 / float64(r.clock)
	exp := r.expected()
	if exp > r.received {
		loss = float64(exp-r.received) / float64(exp)
	}
	return jitterMs, loss, r.received
}
