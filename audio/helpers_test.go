package audio

import (
	"math"
	"sync"
	"testing"
	"time"
)

// tone makes n samples of a sine at hz, sampled at rate.
func tone(hz float64, rate, n int, phase *float64) []int16 {
	out := make([]int16, n)
	for i := range out {
		out[i] = int16(8000 * math.Sin(*phase))
		*phase += 2 * math.Pi * hz / float64(rate)
	}
	return out
}

// goertzel gives the power of hz in x.
func goertzel(x []int16, hz float64, rate int) float64 {
	w := 2 * math.Pi * hz / float64(rate)
	c := 2 * math.Cos(w)
	var s1, s2 float64
	for _, v := range x {
		s := float64(v) + c*s1 - s2
		s2, s1 = s1, s
	}
	return s1*s1 + s2*s2 - c*s1*s2
}

// dominant finds the strongest frequency between 100 and 3500 Hz (10 Hz
// steps, Goertzel) and the signal's RMS.
func dominant(x []int16, rate int) (hz, rms float64) {
	var sum float64
	for _, v := range x {
		sum += float64(v) * float64(v)
	}
	if len(x) == 0 {
		return 0, 0
	}
	rms = math.Sqrt(sum / float64(len(x)))
	best := 0.0
	for f := 100.0; f <= 3500; f += 10 {
		if p := goertzel(x, f, rate); p > best {
			best, hz = p, f
		}
	}
	return hz, rms
}

// assertTone checks that x holds a tone of want Hz (within 20 Hz), loud enough.
func assertTone(t *testing.T, what string, x []int16, rate int, want float64) {
	t.Helper()
	hz, rms := dominant(x, rate)
	if rms < 500 || math.Abs(hz-want) > 20 {
		t.Fatalf("%s: got %.0f Hz at RMS %.0f, want %.0f Hz", what, hz, rms, want)
	}
}

// assertQuiet checks that x is (nearly) silent.
func assertQuiet(t *testing.T, what string, x []int16) {
	t.Helper()
	_, rms := dominant(x, pcmRate)
	if rms > 100 {
		t.Fatalf("%s: RMS %.0f, want silence", what, rms)
	}
}

// collector gathers decoded audio from a tap.
type collector struct {
	mu  sync.Mutex
	pcm []int16
}

func (c *collector) add(p []int16) {
	c.mu.Lock()
	c.pcm = append(c.pcm, p...)
	c.mu.Unlock()
}

func (c *collector) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pcm)
}

// take waits until n samples arrived (polling with a deadline: there is no
// event for "enough audio") and returns them, emptying the collector.
func (c *collector) take(t *testing.T, n int) []int16 {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for c.len() < n {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d samples arrived", c.len(), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.pcm[:n:n]
	c.pcm = nil
	return out
}

func (c *collector) reset() {
	c.mu.Lock()
	c.pcm = nil
	c.mu.Unlock()
}

// feeder pushes a tone into a session's microphone path every 20 ms.
func feeder(t *testing.T, s *Session, hz float64) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ph float64
		tk := time.NewTicker(frameMs * time.Millisecond)
		defer tk.Stop()
		for {
			select {
			case <-done:
				return
			case <-tk.C:
				s.pushMic(tone(hz, pcmRate, frameLen, &ph))
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done); wg.Wait() }) }
}

func (s *Session) setTap(f func([]int16)) {
	s.mu.Lock()
	s.tap = f
	s.mu.Unlock()
}

// toneAmp estimates the amplitude of hz in x (Goertzel).
func toneAmp(x []int16, hz float64, rate int) float64 {
	return 2 * math.Sqrt(goertzel(x, hz, rate)) / float64(len(x))
}

// assertTones checks which tones x holds (amplitude over 1000) and which it
// lacks (under 300).
func assertTones(t *testing.T, what string, x []int16, has, lacks []float64) {
	t.Helper()
	for _, hz := range has {
		if a := toneAmp(x, hz, pcmRate); a < 1000 {
			t.Errorf("%s: %v Hz amplitude %.0f, want it present", what, hz, a)
		}
	}
	for _, hz := range lacks {
		if a := toneAmp(x, hz, pcmRate); a > 300 {
			t.Errorf("%s: %v Hz amplitude %.0f, want it absent", what, hz, a)
		}
	}
}
