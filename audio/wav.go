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

// write appends interleaved samples.
func (w *wavWriter) write(samples []int16) error {
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

// readWAV reads a 16-bit PCM WAV file into one slice per channel.
func readWAV(path string) (rate int, chans [][]int16, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	var riff [12]byte
	if _, err := io.ReadFull(r, riff[:]); err != nil || string(riff[0:4]) != "RIFF" || string(riff[8:12]) != "WAVE" {
		return 0, nil, fmt.Errorf("%s: not a WAV file", path)
	}
	channels, bits := 0, 0
	for {
		var ch [8]byte
		if _, err := io.ReadFull(r, ch[:]); err != nil {
			return 0, nil, fmt.Errorf("%s: no data chunk", path)
		}
		size := int(binary.LittleEndian.Uint32(ch[4:]))
		body := make([]byte, size+size%2)
		n, err := io.ReadFull(r, body)
		if err != nil && string(ch[0:4]) != "data" {
			return 0, nil, fmt.Errorf("%s: %w", path, err)
		}
		body = body[:min(n, size)]
		switch string(ch[0:4]) {
		case "fmt ":
			if len(body) < 16 || binary.LittleEndian.Uint16(body[0:]) != 1 {
				return 0, nil, fmt.Errorf("%s: not PCM", path)
			}
			channels = int(binary.LittleEndian.Uint16(body[2:]))
			rate = int(binary.LittleEndian.Uint32(body[4:]))
			bits = int(binary.LittleEndian.Uint16(body[14:]))
		case "data":
			if channels == 0 || bits != 16 {
				return 0, nil, fmt.Errorf("%s: want 16-bit PCM", path)
			}
			chans = make([][]int16, channels)
			frames := len(body) / (2 * channels)
			for c := range chans {
				chans[c] = make([]int16, frames)
			}
			for i := 0; i < frames; i++ {
				for c := 0; c < channels; c++ {
					chans[c][i] = int16(binary.LittleEndian.Uint16(body[(i*channels+c)*2:]))
				}
			}
			return rate, chans, nil
		}
	}
}

// writeMonoWAV writes one channel as its own file (for recognisers).
func writeMonoWAV(path string, rate int, pcm []int16) error {
	w, err := createWAV(path, rate, 1)
	if err != nil {
		return err
	}
	if err := w.write(pcm); err != nil {
		w.close()
		return err
	}
	_, err = w.close()
	return err
}
