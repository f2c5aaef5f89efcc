package audio

import (
	"fmt"
	"strings"

	"github.com/gotranspile/g722"
	"github.com/thesyncim/gopus"
	"github.com/zaf/g711"
)

// Inside the phone, audio is 16 kHz signed 16-bit mono ("linear"), in frames
// of 20 ms. Each codec converts between that and its RTP payload.
const (
	pcmRate  = 16000
	frameMs  = 20
	frameLen = pcmRate * frameMs / 1000 // 320 samples
	maxFrame = 6 * frameLen             // decode room for up to 120 ms packets
)

// pcmEncoder turns 16 kHz linear audio into one RTP payload.
type pcmEncoder interface {
	encode(pcm []int16, dst []byte) (int, error)
}

// pcmDecoder turns one RTP payload into 16 kHz linear audio.
type pcmDecoder interface {
	decode(payload []byte, dst []int16) (int, error)
}

// frameUnits is the RTP timestamp advance of one 20 ms frame (RFC 3551 4.5:
// G.722 counts 8000 although it samples at 16 kHz; Opus always 48000, RFC 7587 4.1).
func frameUnits(c Codec) uint32 {
	if c.ClockRate == 0 {
		return 160
	}
	return c.ClockRate * frameMs / 1000
}

// withDefaults fills a codec's clock rate (and channels) when the SDP left
// them out (RFC 3551 table 4; RFC 7587 for Opus).
func withDefaults(c Codec) Codec {
	if c.ClockRate == 0 {
		c.ClockRate = 8000
		if codecKind(c.Name) == "opus" {
			c.ClockRate = 48000
		}
	}
	if c.Channels == 0 {
		c.Channels = 1
	}
	return c
}

// codecKind is the codec's name in our spelling, whatever case SDP used
// (encoding names are case-insensitive, RFC 4855 3).
func codecKind(name string) string {
	switch u := strings.ToUpper(name); u {
	case "PCMU", "PCMA", "G722":
		return u
	case "OPUS":
		return "opus"
	case "TELEPHONE-EVENT":
		return "telephone-event"
	}
	return name
}

func newEncoder(c Codec) (pcmEncoder, error) {
	switch codecKind(c.Name) {
	case "PCMU":
		return &g711Enc{law: g711.EncodeUlawFrame}, nil
	case "PCMA":
		return &g711Enc{law: g711.EncodeAlawFrame}, nil
	case "G722":
		return &g722Enc{enc: g722.NewEncoder(g722.Rate64000, 0)}, nil
	case "opus":
		enc, err := gopus.NewEncoder(gopus.EncoderConfig{SampleRate: pcmRate, Channels: 1, Application: gopus.ApplicationVoIP})
		if err != nil {
			return nil, fmt.Errorf("%w: opus encoder: %v", ErrCodec, err)
		}
		return &opusEnc{enc: enc}, nil
	}
	return nil, fmt.Errorf("%w: %s", ErrCodec, c.Name)
}

func newDecoder(c Codec) (pcmDecoder, error) {
	switch codecKind(c.Name) {
	case "PCMU":
		return &g711Dec{law: g711.DecodeUlawFrame}, nil
	case "PCMA":
		return &g711Dec{law: g711.DecodeAlawFrame}, nil
	case "G722":
		return &g722Dec{dec: g722.NewDecoder(g722.Rate64000, 0)}, nil
	case "opus":
		dec, err := gopus.NewDecoder(gopus.DefaultDecoderConfig(pcmRate, 1))
		if err != nil {
			return nil, fmt.Errorf("%w: opus decoder: %v", ErrCodec, err)
		}
		return &opusDec{dec: dec}, nil
	}
	return nil, fmt.Errorf("%w: %s", ErrCodec, c.Name)
}

// g711Enc halves the rate with a [1 2 1]/4 low-pass, then companding.
type g711Enc struct {
	law  func(int16) uint8
	prev int32
}

func (e *g711Enc) encode(pcm []int16, dst []byte) (int, error) {
	n := len(pcm) / 2
	if len(dst) < n {
		return 0, fmt.Errorf("%w: payload buffer too small", ErrCodec)
	}
	for i := 0; i < n; i++ {
		a, b := int32(pcm[2*i]), int32(pcm[2*i+1])
		dst[i] = e.law(int16((e.prev + 2*a + b) / 4))
		e.prev = b
	}
	return n, nil
}

// g711Dec doubles the rate by linear interpolation.
type g711Dec struct {
	law  func(uint8) int16
	prev int32
}

func (d *g711Dec) decode(payload []byte, dst []int16) (int, error) {
	if len(dst) < 2*len(payload) {
		return 0, fmt.Errorf("%w: pcm buffer too small", ErrCodec)
	}
	for i, b := range payload {
		s := int32(d.law(b))
		dst[2*i] = int16((d.prev + s) / 2)
		dst[2*i+1] = int16(s)
		d.prev = s
	}
	return 2 * len(payload), nil
}

type g722Enc struct{ enc *g722.Encoder }

func (e *g722Enc) encode(pcm []int16, dst []byte) (int, error) {
	if len(dst) < len(pcm)/2 {
		return 0, fmt.Errorf("%w: payload buffer too small", ErrCodec)
	}
	return e.enc.Encode(dst, pcm), nil
}

type g722Dec struct{ dec *g722.Decoder }

func (d *g722Dec) decode(payload []byte, dst []int16) (int, error) {
	if len(dst) < 2*len(payload) {
		return 0, fmt.Errorf("%w: pcm buffer too small", ErrCodec)
	}
	return d.dec.Decode(dst, payload), nil
}

type opusEnc struct{ enc *gopus.Encoder }

func (e *opusEnc) encode(pcm []int16, dst []byte) (int, error) {
	n, err := e.enc.EncodeInt16(pcm, dst)
	if err != nil {
		return 0, fmt.Errorf("%w: opus: %v", ErrCodec, err)
	}
	return n, nil
}

type opusDec struct{ dec *gopus.Decoder }

func (d *opusDec) decode(payload []byte, dst []int16) (int, error) {
	n, err := d.dec.DecodeInt16(payload, dst)
	if err != nil {
		return 0, fmt.Errorf("%w: opus: %v", ErrCodec, err)
	}
	return n, nil
}
