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
	quiet := func(f []int16) bool {
		for _, v := range f {
			if v > squeezeQuiet || v < -squeezeQuiet {
				return false
			}
		}
		return true
	}
	keep := squeezeKeep * rate / pcmRate
	frame := squeezeFrame * rate / pcmRate
	i := 0
	for i < len(pcm) {
		j := i
		for j < len(pcm) && quiet(pcm[j:min(j+frame, len(pcm))]) {
			j = min(j+frame, len(pcm))
		}
		if j-i > 2*keep {
			out.pcm = append(out.pcm, pcm[i:i+keep]...)
			out.cuts = append(out.cuts, squeezeCut{at: float64(len(out.pcm)) / float64(rate), removed: float64(j-i-2*keep) / float64(rate)})
			out.pcm = append(out.pcm, pcm[j-keep:j]...)
		} else {
			out.pcm = append(out.pcm, pcm[i:j]...)
		}
		if j >= len(pcm) {
			break
		}
		k := min(j+frame, len(pcm)) // a frame with sound
		out.pcm = append(out.pcm, pcm[j:k]...)
		i = k
	}
	return out
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
