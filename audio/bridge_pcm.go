package audio

import "time"

// PCMLink is a page's audio carried as 16 kHz 16-bit linear frames of
// 20 ms over the page's own session (server/web's WebSocket, played and
// captured by an AudioWorklet): the fallback when the browser's
// RTCPeerConnection cannot connect, as on a machine with loopback only,
// where default Chromium and Firefox gather no ICE candidate at all.
type PCMLink struct{ t *tab }

// pcmQueue bounds the frames waiting for the page: 10 frames (200 ms); the
// oldest wait, new ones are dropped while the page does not read.
const pcmQueue = 10

// AttachPCM connects page tabID's audio over the fallback. It replaces a
// WebRTC connection of the same page. The page holds the audio once its
// first microphone frame arrives (Mic).
func (b *Bridge) AttachPCM(tabID string) *PCMLink {
	t := &tab{b: b, id: tabID, connected: true, pcmOut: make(chan []int16, pcmQueue), pcmDone: make(chan struct{})}
	b.mu.Lock()
	old := b.tabs[tabID]
	b.tabs[tabID] = t
	b.focusLocked(tabID)
	b.changedLocked()
	b.mu.Unlock()
	if old != nil {
		old.close()
	}
	b.eng.log.Info("tab attached", "tab", tabID, "codec", "L16/16000 (fallback)")
	return &PCMLink{t}
}

// Out is the audio for the page, one 20 ms frame at a time.
func (l *PCMLink) Out() <-chan []int16 { return l.t.pcmOut }

// Done is closed when the bridge dropped the link (another connection of
// the page, the page gone, the phone stopping).
func (l *PCMLink) Done() <-chan struct{} { return l.t.pcmDone }

// Mic takes one frame of the page's microphone (16 kHz) to the calls that
// listen, when this page holds the audio.
func (l *PCMLink) Mic(pcm []int16) {
	t := l.t
	t.markFlowing()
	if t.b.holder() != t {
		return
	}
	for _, s := range t.b.eng.talking() {
		s.pushMic(pcm)
	}
	t.b.mixedUp.Add(1)
}

// Close ends the link (the socket closed).
func (l *PCMLink) Close() {
	t := l.t
	t.b.mu.Lock()
	t.b.dropLocked(t.id, t)
	t.b.changedLocked()
	t.b.mu.Unlock()
	t.close()
}

// sendPCM queues one mixed frame for a fallback page; a page that does not
// keep up loses frames, never the mixer's time.
func (t *tab) sendPCM(frame []int16) {
	f := append([]int16(nil), frame...)
	select {
	case t.pcmOut <- f:
	default:
	}
}

func (t *tab) markFlowing() {
	t.mu.Lock()
	first := !t.flowing
	t.flowing = true
	t.mu.Unlock()
	if first {
		t.b.changedNow()
		t.b.eng.log.Debug("tab media flows", "tab", t.id, "after", time.Since(t.born).Round(time.Millisecond))
	}
}

func (t *tab) isFlowing() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.connected && t.flowing
}
