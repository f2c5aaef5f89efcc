package audio

import "sync"

// fifo is a bounded queue of 16 kHz samples between two clocks (a packet
// arrival and a 20 ms ticker). When full, the oldest samples go, so delay
// never grows beyond its capacity.
type fifo struct {
	mu     sync.Mutex
	buf    []int16
	max    int
	primed bool
}

func newFIFO(maxMs int) *fifo { return &fifo{max: pcmRate * maxMs / 1000} }

func (f *fifo) push(pcm []int16) {
	f.mu.Lock()
	f.buf = append(f.buf, pcm...)
	if over := len(f.buf) - f.max; over > 0 {
		f.buf = append(f.buf[:0], f.buf[over:]...)
	}
	f.mu.Unlock()
}

// popAdd adds up to len(dst) samples into dst (mixing) and reports whether
// any sample was there.
func (f *fifo) popAdd(dst []int16) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := min(len(dst), len(f.buf))
	for i := 0; i < n; i++ {
		dst[i] = sat(int32(dst[i]) + int32(f.buf[i]))
	}
	f.buf = append(f.buf[:0], f.buf[n:]...)
	return n > 0
}

func (f *fifo) reset() {
	f.mu.Lock()
	f.buf = f.buf[:0]
	f.primed = false
	f.mu.Unlock()
}

func sat(v int32) int16 {
	if v > 32767 {
		return 32767
	}
	if v < -32768 {
		return -32768
	}
	return int16(v)
}

// popPrimed is popAdd for a consumer on its own clock: it waits until two
// frames are queued before it starts (and again after running dry), so the
// small drift between the producer's packets and the consumer's ticks does
// not cut holes into the sound.
func (f *fifo) popPrimed(dst []int16) bool {
	f.mu.Lock()
	if !f.primed {
		if len(f.buf) < 2*len(dst) {
			f.mu.Unlock()
			return false
		}
		f.primed = true
	}
	if len(f.buf) < len(dst) {
		f.primed = false
	}
	f.mu.Unlock()
	return f.popAdd(dst)
}
