package audio

// Pocketsphinx 0.8 (pocketsphinx_continuous) makes an utterance of its own
// of a second or more of digital silence (one channel of a call while the
// other side talks, a muted microphone, a silent packet stream), and the
// speech after it comes out as nonsense: the far end of a G.722 test call
// with 1 s of silence before the sentence was heard as "i hope that depth",
// the same file with 0.75 s or less of it as "i want to cancel my contract
// please call me back tomorrow" (likewise with 3 s: "on on all on if").
// So quiet stretches are squeezed to at most 0.4 s before recognition and
// the word times mapped back to the recording's.

const (
	squeezeFrame = pcmRate / 50 // 20 ms
	squeezeQuiet = 300          // a frame whose samples stay within ±300 is quiet (as in silent)
	squeezeKeep  = pcmRate / 5  // quiet kept at each edge of a squeezed stretch: 200 ms
)

// squeeze is one channel with its long silences shortened, and where.
type squeeze struct {
	pcm  []int16
	cuts []squeezeCut
}

// squeezeCut: at this time (seconds, in the squeezed audio) so many
// seconds of silence were taken out.
type squeezeCut struct{ at, removed float64 }

// squeezeSilence keeps of every stretch of quiet frames longer than 0.4 s
// its first and last 200 ms, and drops the rest.
func squeezeSilence(pcm []int16, rate int) squeeze {
	var out squeeze
	z := newSqueezer(rate, func(p []int16) error { out.pcm = append(out.pcm, p...); return nil })
	for i := 0; i < len(pcm); i += z.frame {
		z.push(pcm[i:min(i+z.frame, len(pcm))])
	}
	z.end()
	out.cuts = z.cuts
	return out
}

// squeezer squeezes a channel given a frame at a time (frames of 20 ms from
// its start, the last one maybe shorter), so that hours of it need no more
// memory than 200 ms: the first 200 ms of a quiet stretch go out at once,
// of the rest only the last 200 ms are held until the stretch ends.
type squeezer struct {
	keep, frame, rate int
	out               func([]int16) error
	n                 int     // samples given out
	run               int     // samples of the current quiet stretch
	tail              []int16 // its latest samples after the first keep, at most 2*keep
	cuts              []squeezeCut
	err               error
}

func newSqueezer(rate int, out func([]int16) error) *squeezer {
	keep := max(squeezeKeep*rate/pcmRate, 1)
	return &squeezer{keep: keep, frame: max(squeezeFrame*rate/pcmRate, 1), rate: rate, out: out, tail: make([]int16, 0, 2*keep)}
}

func (z *squeezer) emit(p []int16) {
	if z.err == nil && len(p) > 0 {
		z.err = z.out(p)
		z.n += len(p)
	}
}

// push takes the next frame.
func (z *squeezer) push(f []int16) {
	for _, v := range f {
		if v > squeezeQuiet || v < -squeezeQuiet {
			z.end()
			z.emit(f)
			return
		}
	}
	head := min(max(z.keep-z.run, 0), len(f))
	z.emit(f[:head])
	z.run += len(f)
	rest := f[head:]
	if len(z.tail)+len(rest) > cap(z.tail) {
		// Only the last keep samples can still be needed.
		drop := len(z.tail) + len(rest) - z.keep
		if drop >= len(z.tail) {
			rest = rest[drop-len(z.tail):]
			z.tail = z.tail[:0]
		} else {
			z.tail = z.tail[:copy(z.tail, z.tail[drop:])]
		}
	}
	z.tail = append(z.tail, rest...)
}

// end ends a quiet stretch (at a frame with sound, or the channel's end).
func (z *squeezer) end() {
	if z.run > 2*z.keep {
		z.cuts = append(z.cuts, squeezeCut{at: float64(z.n) / float64(z.rate), removed: float64(z.run-2*z.keep) / float64(z.rate)})
		z.emit(z.tail[len(z.tail)-z.keep:])
	} else {
		z.emit(z.tail)
	}
	z.run, z.tail = 0, z.tail[:0]
}

// original maps a time in the squeezed audio back to the recording's.
func (s squeeze) original(t float64) float64 {
	o := t
	for _, c := range s.cuts {
		if c.at > t {
			break
		}
		o += c.removed
	}
	return o
}
