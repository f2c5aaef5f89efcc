package audio

import "time"

// rewriter numbers the packets of one outgoing RTP stream so its sequence
// numbers and timestamps stay continuous whatever feeds it: packets passed
// through from another stream, frames we encode, a codec change on re-INVITE
// or a call moved by hold, transfer or conference (RFC 3550 5.1: the
// timestamp advances with the sampling clock, the sequence number by one).
type rewriter struct {
	started  bool
	seq      uint16
	ts       uint32
	lastDur  uint32 // timestamp units of the last packet
	lastWall time.Time

	src    uint32 // SSRC of the pass-through source, when the last packet was one
	srcSet bool
	srcSeq uint16
	srcTS  uint32
}

// gen numbers a packet we made that lasts dur timestamp units.
func (r *rewriter) gen(dur uint32, now time.Time) (uint16, uint32, bool) {
	seq, ts, marker := r.advance(dur, now)
	r.srcSet = false
	return seq, ts, marker
}

// pass numbers a packet taken from another stream. Within one source the
// sequence and timestamp gaps are kept (so loss stays visible); a new source
// starts one packet (or the elapsed wall time) after the last packet.
func (r *rewriter) pass(ssrc uint32, seq uint16, ts uint32, dur uint32, now time.Time) (uint16, uint32, bool) {
	if r.started && r.srcSet && r.srcSSRCMatches(ssrc) {
		ds := seq - r.srcSeq
		dt := ts - r.srcTS
		if ds > 0 && ds < 100 && int32(dt) >= 0 && dt < 50*dur {
			r.seq += ds
			r.ts += dt
			if dt > 0 {
				r.lastDur = dt / uint32(ds)
			}
			r.srcSeq, r.srcTS, r.lastWall = seq, ts, now
			return r.seq, r.ts, false
		}
	}
	oseq, ots, marker := r.advance(dur, now)
	r.src, r.srcSet, r.srcSeq, r.srcTS = ssrc, true, seq, ts
	return oseq, ots, marker
}

func (r *rewriter) srcSSRCMatches(ssrc uint32) bool { return r.src == ssrc }

func (r *rewriter) advance(dur uint32, now time.Time) (uint16, uint32, bool) {
	marker := false
	switch {
	case !r.started:
		r.started, marker = true, true
	default:
		step := r.lastDur
		gap := now.Sub(r.lastWall)
		// After a pause (hold, silence suppression, a move between calls)
		// the timestamp follows the wall clock and the marker bit says a
		// talkspurt begins (RFC 3551 4.1).
		if gap > 3*frameMs*time.Millisecond && dur > 0 {
			units := uint32(gap.Milliseconds()) * (dur / frameMs)
			frames := (units + dur/2) / dur
			step = frames * dur
			marker = true
		}
		r.seq++
		r.ts += step
	}
	r.lastDur, r.lastWall = dur, now
	return r.seq, r.ts, marker
}
