package audio

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pion/rtp"
	"github.com/pion/sdp/v3"
	"github.com/pion/webrtc/v4"
)

// tab is one phone page's PeerConnection.
type tab struct {
	b      *Bridge
	id     string
	pc     *webrtc.PeerConnection
	sender *webrtc.RTPSender
	prefs  []webrtc.RTPCodecParameters // what the answer allows, our order

	mu         sync.Mutex
	track      *webrtc.TrackLocalStaticRTP
	codec      Codec // what we send to the tab now
	lastSwitch time.Time
	connected  bool
	flowing    bool          // a packet (or PCM frame) came from the tab: media flows
	born       time.Time     // for the log: how long until media flowed
	pcmOut     chan []int16  // fallback pages only (bridge_pcm.go)
	pcmDone    chan struct{} // closed by close() on fallback pages
	closeOnce  sync.Once
	out        rewriter // numbering toward the tab, continuous across calls
	enc        pcmEncoder
	lastPass   time.Time
	payload    []byte

	secrets *dtlsSecrets             // what the DTLS handshake revealed (bridge_fast.go)
	fast    atomic.Pointer[fastPath] // the media below pion, once connected
}

func newTab(b *Bridge, id string, codec Codec) (*tab, error) {
	secrets := &dtlsSecrets{}
	pc, err := b.newAPI(secrets).NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadOffer, err)
	}
	capab := webrtc.RTPCodecCapability{MimeType: "audio/" + codec.Name, ClockRate: codec.ClockRate,
		Channels: codec.Channels, SDPFmtpLine: codec.Fmtp}
	track, err := webrtc.NewTrackLocalStaticRTP(capab, "audio", "softphone")
	if err != nil {
		pc.Close()
		return nil, fmt.Errorf("%w: %v", ErrBadOffer, err)
	}
	t := &tab{b: b, id: id, pc: pc, track: track, secrets: secrets, codec: codec, payload: make([]byte, 1500), born: time.Now(),
		out: rewriter{seq: uint16(rand.Uint32()), ts: rand.Uint32()}}
	return t, nil
}

// negotiate applies the offer and returns the answer with its candidates.
func (t *tab) negotiate(ctx context.Context, offer string, prefs []webrtc.RTPCodecParameters) (string, error) {
	sender, err := t.pc.AddTrack(t.track)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrBadOffer, err)
	}
	t.sender, t.prefs = sender, prefs
	go drainRTCP(sender)
	t.pc.OnTrack(t.readLoop)
	t.pc.OnConnectionStateChange(func(st webrtc.PeerConnectionState) {
		if st == webrtc.PeerConnectionStateConnected {
			t.startFast()
		} else {
			t.stopFast()
		}
		t.mu.Lock()
		t.connected = st == webrtc.PeerConnectionStateConnected
		t.mu.Unlock()
		t.b.changedNow()
		if st == webrtc.PeerConnectionStateFailed || st == webrtc.PeerConnectionStateClosed {
			t.b.mu.Lock()
			t.b.dropLocked(t.id, t)
			t.b.mu.Unlock()
			if st == webrtc.PeerConnectionStateFailed {
				go t.close()
			}
		}
		t.b.eng.log.Debug("tab connection", "tab", t.id, "state", st.String())
	})
	if err := t.pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeOffer, SDP: offer}); err != nil {
		return "", fmt.Errorf("%w: %v", ErrBadOffer, err)
	}
	for _, tr := range t.pc.GetTransceivers() {
		if tr.Sender() == sender {
			if err := tr.SetCodecPreferences(prefs); err != nil {
				return "", fmt.Errorf("%w: %v", ErrBadOffer, err)
			}
		}
	}
	answer, err := t.pc.CreateAnswer(nil)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrBadOffer, err)
	}
	gathered := webrtc.GatheringCompletePromise(t.pc)
	if err := t.pc.SetLocalDescription(answer); err != nil {
		return "", fmt.Errorf("%w: %v", ErrBadOffer, err)
	}
	select {
	case <-gathered:
	case <-ctx.Done():
		return "", fmt.Errorf("%w: %v", ErrBadOffer, context.Cause(ctx))
	}
	return t.pc.LocalDescription().SDP, nil
}

func drainRTCP(s *webrtc.RTPSender) {
	buf := make([]byte, 1500)
	for {
		if _, _, err := s.Read(buf); err != nil {
			return
		}
	}
}

func (t *tab) isConnected() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.connected
}

func (t *tab) close() {
	t.closeOnce.Do(func() {
		t.stopFast()
		if t.pc != nil {
			_ = t.pc.Close()
		}
		if t.pcmDone != nil {
			close(t.pcmDone)
		}
	})
}

// write sends one packet to the tab, numbered into its continuous stream.
func write(track *webrtc.TrackLocalStaticRTP, payload []byte, marker bool, seq uint16, ts uint32) {
	p := rtp.Packet{Header: rtp.Header{Version: 2, Marker: marker, SequenceNumber: seq, Timestamp: ts},
		Payload: payload}
	_ = track.WriteRTP(&p)
}

// follow makes what we send to the tab use codec c when the tab accepted it
// in the answer, so a call's packets pass through although the tab's first
// codec is another one (the tab decodes any payload type it agreed to; no
// renegotiation). It reports whether the tab now gets c.
func (t *tab) follow(c Codec) bool {
	t.mu.Lock()
	// Per packet: names compared as they are (codec names are
	// case-insensitive, RFC 4855 3), no copy upper-cased each time.
	if strings.EqualFold(t.codec.Name, c.Name) {
		t.mu.Unlock()
		return true
	}
	if time.Since(t.lastSwitch) < time.Second {
		t.mu.Unlock()
		return false // no flapping between two calls
	}
	t.lastSwitch = time.Now()
	t.mu.Unlock()
	for _, p := range t.prefs {
		pc := codecFromWebRTC(p)
		if codecKind(pc.Name) != codecKind(c.Name) {
			continue
		}
		track, err := webrtc.NewTrackLocalStaticRTP(p.RTPCodecCapability, "audio", "softphone")
		if err != nil {
			return false
		}
		if err := t.sender.ReplaceTrack(track); err != nil {
			return false
		}
		t.mu.Lock()
		t.track, t.codec, t.enc = track, pc, nil
		t.mu.Unlock()
		t.b.eng.log.Debug("tab follows the call's codec", "tab", t.id, "codec", pc.Name)
		return true
	}
	return false
}

// offeredCodecs reads the audio codecs of the offer's first audio section.
func offeredCodecs(offer string) ([]webrtc.RTPCodecParameters, error) {
	var sd sdp.SessionDescription
	if err := sd.UnmarshalString(offer); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadOffer, err)
	}
	for _, m := range sd.MediaDescriptions {
		if m.MediaName.Media != "audio" {
			continue
		}
		var out []webrtc.RTPCodecParameters
		for _, f := range m.MediaName.Formats {
			pt, err := strconv.Atoi(f)
			if err != nil {
				continue
			}
			c, err := sd.GetCodecForPayloadType(uint8(pt))
			if err != nil {
				continue
			}
			ch, _ := strconv.Atoi(c.EncodingParameters)
			out = append(out, webrtc.RTPCodecParameters{PayloadType: webrtc.PayloadType(pt),
				RTPCodecCapability: webrtc.RTPCodecCapability{MimeType: "audio/" + c.Name,
					ClockRate: c.ClockRate, Channels: uint16(ch), SDPFmtpLine: c.Fmtp}})
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w: no audio section", ErrBadOffer)
}

func codecFromWebRTC(c webrtc.RTPCodecParameters) Codec {
	name := strings.TrimPrefix(c.MimeType, "audio/")
	if strings.EqualFold(name, "opus") {
		name = "opus"
	} else {
		name = strings.ToUpper(name)
		if name == "TELEPHONE-EVENT" {
			name = "telephone-event"
		}
	}
	return Codec{Name: name, PT: uint8(c.PayloadType), ClockRate: c.ClockRate, Channels: c.Channels, Fmtp: c.SDPFmtpLine}
}
