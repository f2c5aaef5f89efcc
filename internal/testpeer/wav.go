package testpeer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
)

// WriteTone writes a mono 16-bit WAV of a sine at hz, half scale.
func WriteTone(path string, hz float64, rate, secs int) error {
	n := rate * secs
	pcm := make([]int16, n)
	for i := range pcm {
		pcm[i] = int16(16000 * math.Sin(2*math.Pi*hz*float64(i)/float64(rate)))
	}
	return WriteWAV(path, rate, 1, pcm)
}

// WriteWAV writes interleaved 16-bit PCM as a WAV file.
func WriteWAV(path string, rate, channels int, pcm []int16) error {
	data := make([]byte, 44+2*len(pcm))
	copy(data, "RIFF")
	binary.LittleEndian.PutUint32(data[4:], uint32(36+2*len(pcm)))
	copy(data[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(data[16:], 16)
	binary.LittleEndian.PutUint16(data[20:], 1)
	binary.LittleEndian.PutUint16(data[22:], uint16(channels))
	binary.LittleEndian.PutUint32(data[24:], uint32(rate))
	binary.LittleEndian.PutUint32(data[28:], uint32(rate*channels*2))
	binary.LittleEndian.PutUint16(data[32:], uint16(channels*2))
	binary.LittleEndian.PutUint16(data[34:], 16)
	copy(data[36:], "data")
	binary.LittleEndian.PutUint32(data[40:], uint32(2*len(pcm)))
	for i, s := range pcm {
		binary.LittleEndian.PutUint16(data[44+2*i:], uint16(s))
	}
	return os.WriteFile(path, data, 0o644)
}

// WAV is a decoded 16-bit PCM file.
type WAV struct {
	Rate, Channels int
	Samples        []int16 // interleaved
}

// ReadWAV reads a 16-bit PCM WAV file, skipping chunks other than fmt and data.
func ReadWAV(path string) (WAV, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return WAV{}, err
	}
	if len(b) < 12 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return WAV{}, errors.New("not a WAV file")
	}
	var w WAV
	bits := 0
	for p := 12; p+8 <= len(b); {
		id, size := string(b[p:p+4]), int(binary.LittleEndian.Uint32(b[p+4:]))
		if id == "data" && (size == 0 || p+8+size > len(b)) {
			size = len(b) - p - 8 // still being written: the header is fixed only at close
		}
		body := b[p+8 : min(len(b), p+8+size)]
		switch id {
		case "fmt ":
			w.Channels = int(binary.LittleEndian.Uint16(body[2:]))
			w.Rate = int(binary.LittleEndian.Uint32(body[4:]))
			bits = int(binary.LittleEndian.Uint16(body[14:]))
		case "data":
			if bits != 16 {
				return WAV{}, fmt.Errorf("%d-bit WAV, want 16", bits)
			}
			w.Samples = make([]int16, len(body)/2)
			for i := range w.Samples {
				w.Samples[i] = int16(binary.LittleEndian.Uint16(body[2*i:]))
			}
			return w, nil
		}
		p += 8 + size + size%2
	}
	return WAV{}, errors.New("WAV without data")
}

// Channel returns one channel of the file as float samples in -1..1.
func (w WAV) Channel(ch int) []float64 {
	if w.Channels == 0 {
		return nil
	}
	out := make([]float64, 0, len(w.Samples)/w.Channels)
	for i := ch; i < len(w.Samples); i += w.Channels {
		out = append(out, float64(w.Samples[i])/32768)
	}
	return out
}

// Tone describes the loudest stretch of a signal: its RMS and the frequency
// with the most energy between 100 and 4000 Hz (Goertzel, 10 Hz steps).
type Tone struct {
	Hz  float64
	RMS float64
}

// AnalyseTone finds the loudest half second of x and measures it.
func AnalyseTone(x []float64, rate int) Tone {
	win := rate / 2
	if len(x) < win {
		return Tone{}
	}
	best, bestRMS := 0, -1.0
	for off := 0; off+win <= len(x); off += win / 2 {
		if r := rms(x[off : off+win]); r > bestRMS {
			best, bestRMS = off, r
		}
	}
	seg := x[best : best+win]
	var peakHz, peak float64
	for hz := 100.0; hz <= 4000 && hz < float64(rate)/2; hz += 10 {
		if p := goertzel(seg, hz, rate); p > peak {
			peak, peakHz = p, hz
		}
	}
	return Tone{Hz: peakHz, RMS: bestRMS}
}

// AnalyseFile measures channel ch of a WAV file.
func AnalyseFile(path string, ch int) (Tone, error) {
	w, err := ReadWAV(path)
	if err != nil {
		return Tone{}, err
	}
	return AnalyseTone(w.Channel(ch), w.Rate), nil
}

func rms(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v * v
	}
	return math.Sqrt(s / float64(len(x)))
}

func goertzel(x []float64, hz float64, rate int) float64 {
	w := 2 * math.Pi * hz / float64(rate)
	c := 2 * math.Cos(w)
	var s1, s2 float64
	for _, v := range x {
		s0 := v + c*s1 - s2
		s2, s1 = s1, s0
	}
	return s1*s1 + s2*s2 - c*s1*s2
}
