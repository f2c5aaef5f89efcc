package audio

import (
	"strings"
	"sync"

	"github.com/pion/rtp"
	"github.com/pion/webrtc/v4"
)

// rawTrack is a TrackLocal that writes packets with any payload type, as a
// browser does when it sends telephone-event on its audio stream
// (TrackLocalStaticRTP would rewrite the payload type).
type rawTrack struct {
	capab webrtc.RTPCodecCapability

	mu   sync.Mutex
	ws   webrtc.TrackLocalWriter
	ssrc webrtc.SSRC
	seq  uint16
	ts   uint32
	unit uint32
}

func (r *rawTrack) Bind(ctx webrtc.TrackLocalContext) (webrtc.RTPCodecParameters, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ws, r.ssrc, r.seq, r.ts = ctx.WriteStream(), ctx.SSRC(), 1000, 5000
	r.unit = r.capab.ClockRate / 50
	for _, c := range ctx.CodecParameters() {
		if strings.EqualFold(c.MimeType, r.capab.MimeType) {
			return c, nil
		}
	}
	return webrtc.RTPCodecParameters{}, webrtc.ErrUnsupportedCodec
}

func (r *rawTrack) Unbind(webrtc.TrackLocalContext) error {
	r.mu.Lock()
	r.ws = nil
	r.mu.Unlock()
	return nil
}

func (r *rawTrack) ID() string                { return "mic" }
func (r *rawTrack) RID() string               { return "" }
func (r *rawTrack) StreamID() string          { return "tab" }
func (r *rawTrack) Kind() webrtc.RTPCodecType { return webrtc.RTPCodecTypeAudio }

// write sends one 20 ms audio packet.
func (r *rawTrack) write(pt uint8, payload []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ws == nil {
		return
	}
	_, _ = r.ws.WriteRTP(&rtp.Header{Version: 2, PayloadType: pt, SequenceNumber: r.seq, Timestamp: r.ts, SSRC: uint32(r.ssrc)}, payload)
	r.seq++
	r.ts += r.unit
}

// dtmf sends one RFC 4733 event (3 packets, 3 end packets) as a browser's
// RTCDTMFSender does, in place of audio.
func (r *rawTrack) dtmf(pt uint8, digit byte) {
	code, _ := dtmfCode(digit)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ws == nil {
		return
	}
	start := r.ts
	for i := 1; i <= 6; i++ {
		ev := dtmfEvent{event: code, volume: 10, duration: uint16(160 * min(i, 4)), end: i > 3}
		_, _ = r.ws.WriteRTP(&rtp.Header{Version: 2, PayloadType: pt, SequenceNumber: r.seq, Timestamp: start, SSRC: uint32(r.ssrc), Marker: i == 1}, ev.marshal())
		r.seq++
	}
	r.ts += 4 * r.unit
}
