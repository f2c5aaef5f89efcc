package audio

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
)

// Recordings are RIFF WAVE files: 16-bit signed little-endian PCM, 16 kHz,
// two channels, left = this side (the tab's microphone), right = the far end.

// wavHeader is the 44-byte canonical header for dataLen bytes of PCM.
func wavHeader(rate, channels int, dataLen uint32) []byte {
	h := make([]byte, 44)
	copy(h[0:], "RIFF")
	binary.LittleEndian.PutUint32(h[4:], 36+dataLen)
	copy(h[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(h[16:], 16)
	binary.LittleEndian.PutUint16(h[20:], 1) // PCM
	binary.LittleEndian.PutUint16(h[22:], uint16(channels))
	binary.LittleEndian.PutUint32(h[24:], uint32(rate))
	binary.LittleEndian.PutUint32(h[28:], uint32(rate*channels*2))
	binary.LittleEndian.PutUint16(h[32:], uint16(channels*2))
	binary.LittleEndian.PutUint16(h[34:], 16)
	copy(h[36:], "data")
	binary.LittleEndian.PutUint32(h[40:], dataLen)
	return h
}

// wavWriter writes a WAV file whose header is completed on close.
type wavWriter struct {
	f        *os.File
	w        *bufio.Writer
	rate, ch int
	n        uint32 // data bytes
	buf      []byte
}

func createWAV(path string, rate, channels int) (*wavWriter, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrRecording, err)
	}
	w := &wavWriter{f: f, w: bufio.NewWriterSize(f, 32<<10), rate: rate, ch: channels}
	if _, err := w.w.Write(wavHeader(rate, channels, 0)); err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: %v", ErrRecording, err)
	}
	return w, nil
}

// maxData is the most PCM a WAV file holds, in whole frames: its RIFF
// chunk's size, 36 + data, is a 32-bit number (RIFF 1.0), so a stereo 16 kHz
// recording ends at 18.6 hours; beyond, the header's lengths would wrap
// and say the file holds minutes.
func (w *wavWriter) maxData() int64 {
	block := int64(2 * w.ch)
	return (0xFFFFFFFF - 36) / block * block
}

// write appends interleaved samples.
func (w *wavWriter) write(samples []int16) error {
	if int64(w.n)+2*int64(len(samples)) > w.maxData() {
		return fmt.Errorf("%w: a WAV file holds at most %d bytes of audio", ErrRecording, w.maxData())
	}
	w.buf = w.buf[:0]
	for _, s := range samples {
		w.buf = binary.LittleEndian.AppendUint16(w.buf, uint16(s))
	}
	n, err := w.w.Write(w.buf)
	w.n += uint32(n)
	return err
}

// close fixes the header and reports the file size.
func (w *wavWriter) close() (int64, error) {
	err := w.w.Flush()
	if err != nil {
		// Not all of it reached the file (a full disk): the header gives
		// the whole frames that did, so the file plays up to there.
		if st, e := w.f.Stat(); e == nil && st.Size() >= 44 {
			align := int64(2 * w.ch)
			w.n = uint32(min(int64(w.n), (st.Size()-44)/align*align))
		}
	}
	if _, e := w.f.WriteAt(wavHeader(w.rate, w.ch, w.n), 0); err == nil {
		err = e
	}
	if e := w.f.Sync(); err == nil {
		err = e
	}
	if e := w.f.Close(); err == nil {
		err = e
	}
	return 44 + int64(w.n), err
}

// wavData is the PCM of a WAV file found by its chunks (RIFF: Microsoft/IBM
// "Multimedia Programming Interface and Data Specifications 1.0", 1991: each
// chunk is id, little-endian size, body, and a pad byte when the size is odd;
// chunks such as LIST may come before "data"). Its length is what the file
// really holds, whatever the header says: a file cut short by a crash, or a
// header that claims 4 GB on a small file, is read up to its last whole frame
// and nothing is ever allocated at a size a header states.
type wavData struct {
	f        *os.File
	rate     int
	channels int
	frames   int64
	data     *io.SectionReader
	raw      []byte
}

// openWAV finds the 16-bit PCM data of a WAV file; close it when done.
func openWAV(path string) (*wavData, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	d, err := parseWAV(f, path)
	if err != nil {
		f.Close()
		return nil, err
	}
	return d, nil
}

func parseWAV(f *os.File, path string) (*wavData, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	var riff [12]byte
	if _, err := f.ReadAt(riff[:], 0); err != nil || string(riff[0:4]) != "RIFF" || string(riff[8:12]) != "WAVE" {
		return nil, fmt.Errorf("%s: not a WAV file", path)
	}
	d := &wavData{f: f}
	bits := 0
	for off := int64(12); ; {
		var ch [8]byte
		if _, err := f.ReadAt(ch[:], off); err != nil {
			return nil, fmt.Errorf("%s: no data chunk", path)
		}
		n := int64(binary.LittleEndian.Uint32(ch[4:]))
		body := off + 8
		switch string(ch[0:4]) {
		case "fmt ":
			var b [16]byte
			if n < 16 {
				return nil, fmt.Errorf("%s: not PCM", path)
			}
			if _, err := f.ReadAt(b[:], body); err != nil {
				return nil, fmt.Errorf("%s: fmt chunk: %w", path, err)
			}
			if binary.LittleEndian.Uint16(b[0:]) != 1 {
				return nil, fmt.Errorf("%s: not PCM", path)
			}
			d.channels = int(binary.LittleEndian.Uint16(b[2:]))
			d.rate = int(binary.LittleEndian.Uint32(b[4:]))
			bits = int(binary.LittleEndian.Uint16(b[14:]))
		case "data":
			if d.channels == 0 || bits != 16 {
				return nil, fmt.Errorf("%s: want 16-bit PCM", path)
			}
			if d.rate < 1000 || d.rate > 192000 {
				// Buffers and the squeeze's frames are sized by the
				// rate: a header's 4 GHz must not size them.
				return nil, fmt.Errorf("%s: sample rate %d Hz", path, d.rate)
			}
			// Never more than the file holds, and whole frames only.
			n = min(n, max(size-body, 0))
			block := int64(2 * d.channels)
			d.frames = n / block
			d.data = io.NewSectionReader(f, body, d.frames*block)
			return d, nil
		}
		off = body + n + n%2
	}
}

// next reads the following frames into p (interleaved samples, whole frames
// of it) and says how many it read; io.EOF after the last.
func (d *wavData) next(p []int16) (int, error) {
	frames := len(p) / d.channels
	need := frames * d.channels * 2
	if cap(d.raw) < need {
		d.raw = make([]byte, need)
	}
	raw := d.raw[:need]
	n, err := io.ReadFull(d.data, raw)
	frames = n / (2 * d.channels)
	for i := 0; i < frames*d.channels; i++ {
		p[i] = int16(binary.LittleEndian.Uint16(raw[2*i:]))
	}
	if err == io.ErrUnexpectedEOF {
		err = nil // the last, short read; io.EOF comes next
	}
	if frames == 0 && err == nil {
		err = io.EOF
	}
	return frames, err
}

func (d *wavData) Close() error { return d.f.Close() }

// buffer is a buffer for next of about 32 KB, whatever the channel count.
func (d *wavData) buffer() []int16 {
	return make([]int16, max(1, 16384/d.channels)*d.channels)
}

// readWAV reads a 16-bit PCM WAV file into one slice per channel (memory
// as large as the file really is: for tests and short files only).
func readWAV(path string) (rate int, chans [][]int16, err error) {
	d, err := openWAV(path)
	if err != nil {
		return 0, nil, err
	}
	defer d.Close()
	chans = make([][]int16, d.channels)
	buf := d.buffer()
	for {
		n, err := d.next(buf)
		for c := range chans {
			for i := 0; i < n; i++ {
				chans[c] = append(chans[c], buf[i*d.channels+c])
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	for c := range chans {
		if chans[c] == nil {
			chans[c] = []int16{}
		}
	}
	return d.rate, chans, nil
}
