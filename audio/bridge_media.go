package audio

import (
	"time"

	"github.com/pion/rtp"
	"github.com/pion/webrtc/v4"
)

// micState is what the tab's microphone stream keeps between packets, on
// whichever path its packets arrive (pion's track or the fast path).
type micState struct {
	t       *tab
	codecs  [128]*Codec // by payload type, from the answer
	te      [128]bool   // telephone-event payload types
	codec   *Codec      // the first audio codec the tab sent (as pion's track)
	dec     pcmDecoder
	det     dtmfDetector
	pcm     []int16
	pkt     rtp.Packet
	flowing bool
}

func (m *micState) init(t *tab) {
	m.t, m.pcm = t, make([]int16, maxFrame)
	for _, p := range t.prefs {
		c := codecFromWebRTC(p)
		if p.PayloadType > 127 {
			continue
		}
		if c.Name == "telephone-event" {
			m.te[p.PayloadType] = true
			continue
		}
		m.codecs[p.PayloadType] = &c
	}
}

// packet handles one packet from the tab (its header and payload are only
// borrowed).
func (m *micState) packet(h *rtp.Header, payload []byte) {
	t := m.t
	if !m.flowing {
		m.flowing = true
		t.markFlowing()
	}
	if t.b.holder() != t {
		return // another tab holds the audio
	}
	pt := h.PayloadType & 0x7f
	if m.te[pt] {
		var digits []byte // several when events are packed (RFC 4733 2.5.1.5): sent in order
		m.det.feedAll(h.Timestamp, h.Marker, payload, func(d byte) { digits = append(digits, d) })
		if len(digits) > 0 {
			for _, s := range t.b.eng.talking() {
				go func() {
					for _, d := range digits {
						_ = s.SendDTMF(d)
					}
				}()
			}
		}
		return
	}
	if m.codec == nil {
		m.codec = m.codecs[pt]
	}
	if m.codec == nil || pt != m.codec.PT {
		return
	}
	m.pkt.Header, m.pkt.Payload = *h, payload
	t.up(&m.pkt, *m.codec, &m.dec, m.pcm)
}

// readLoop takes the tab's microphone (and its DTMF) toward the calls while
// pion carries the media (until the fast path is up, bridge_fast.go).
func (t *tab) readLoop(tr *webrtc.TrackRemote, recv *webrtc.RTPReceiver) {
	var m micState
	m.init(t)
	c := codecFromWebRTC(tr.Codec())
	m.codec = &c
	for _, c := range recv.GetParameters().Codecs {
		if codecFromWebRTC(c).Name == "telephone-event" && c.PayloadType < 128 {
			m.te[c.PayloadType] = true
		}
	}
	for {
		p, _, err := tr.ReadRTP()
		if err != nil {
			return
		}
		m.packet(&p.Header, p.Payload)
	}
}

// up passes one microphone packet to the call as it is when exactly one call
// listens and speaks the same codec; otherwise decodes it for every call that
// listens (and for a recording).
func (t *tab) up(p *rtp.Packet, codec Codec, dec *pcmDecoder, pcm []int16) {
	one, n := t.b.eng.soleTalking()
	if n == 0 {
		return
	}
	now := time.Now()
	passed := n == 1 && one.passUp(p, codec, now)
	if passed {
		t.b.passedUp.Add(1)
	} else {
		t.b.mixedUp.Add(1)
	}
	if passed && !one.recording() {
		return
	}
	if *dec == nil {
		d, err := newDecoder(codec)
		if err != nil {
			return
		}
		*dec = d
	}
	k, err := (*dec).decode(p.Payload, pcm)
	if err != nil || k == 0 {
		return
	}
	if passed {
		one.recordLocal(pcm[:k])
		return
	}
	for _, s := range t.b.eng.talking() {
		s.pushMic(pcm[:k])
	}
}

// down passes a packet from the PBX to the tab as it is when the tab speaks
// the call's codec and hears only this call. It also reports true when no
// tab listens, so nothing is decoded for nobody.
func (b *Bridge) down(s *Session, p *rtp.Packet, c Codec) bool {
	t := b.holder()
	if t == nil {
		return true
	}
	if t.pcmOut != nil {
		return false // a fallback page gets the mix (mixTick)
	}
	if one, n := b.eng.soleAudible(); n != 1 || one != s || s.conferenced() || !t.follow(c) {
		return false
	}
	now := time.Now()
	t.mu.Lock()
	if codecKind(t.codec.Name) != codecKind(c.Name) {
		t.mu.Unlock()
		return false
	}
	seq, ts, marker := t.out.pass(p.SSRC, p.SequenceNumber, p.Timestamp, frameUnits(t.codec), now)
	t.lastPass = now
	track, pt := t.track, t.codec.PT
	t.mu.Unlock()
	t.send(track, pt, p.Payload, marker || p.Marker, seq, ts)
	b.passedDown.Add(1)
	return true
}

// pushPCM queues decoded far-end audio for the mix toward the tab.
func (b *Bridge) pushPCM(s *Session, pcm []int16) {
	b.mu.Lock()
	f := b.fifos[s]
	if f == nil {
		f = newFIFO(200)
		b.fifos[s] = f
	}
	b.mu.Unlock()
	f.push(pcm)
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

func (b *Bridge) forget(s *Session) {
	b.mu.Lock()
	delete(b.fifos, s)
	b.mu.Unlock()
}

// mixLoop sends the tab, every 20 ms, the sum of the calls it hears when
// their packets cannot be passed through (another codec, several calls, a
// conference), encoded in the tab's codec. It sleeps while nothing is
// queued (pushPCM wakes it), so an idle phone costs no wake-ups.
func (b *Bridge) mixLoop() {
	defer b.wg.Done()
	for {
		select {
		case <-b.done:
			return
		case <-b.wake:
		}
		tk := time.NewTicker(frameMs * time.Millisecond)
		for idle := 0; idle < 10; {
			select {
			case <-b.done:
				tk.Stop()
				return
			case now := <-tk.C:
				if b.mixTick(now) {
					idle = 0
				} else {
					idle++
				}
			}
		}
		tk.Stop()
	}
}

// mixTick reports whether any audio was queued.
func (b *Bridge) mixTick(now time.Time) bool {
	t := b.holder()
	b.mu.Lock()
	fifos := make([]*fifo, 0, len(b.fifos))
	for _, f := range b.fifos {
		fifos = append(fifos, f)
	}
	b.mu.Unlock()
	if t == nil {
		for _, f := range fifos {
			f.reset()
		}
		return false
	}
	frame := b.frame
	clear(frame)
	any := false
	for _, f := range fifos {
		if f.popPrimed(frame) {
			any = true
		}
	}
	if !any {
		return false
	}
	if t.pcmOut != nil {
		t.sendPCM(frame)
		b.mixedDown.Add(1)
		return true
	}
	t.mu.Lock()
	if now.Sub(t.lastPass) < passHold {
		t.mu.Unlock()
		return true
	}
	if t.enc == nil {
		enc, err := newEncoder(t.codec)
		if err != nil {
			t.mu.Unlock()
			return true
		}
		t.enc = enc
	}
	n, err := t.enc.encode(frame, t.payload)
	if err != nil {
		t.mu.Unlock()
		return true
	}
	seq, ts, marker := t.out.gen(frameUnits(t.codec), now)
	payload := append(b.mixed[:0], t.payload[:n]...) // only mixLoop uses it
	track, pt := t.track, t.codec.PT
	t.mu.Unlock()
	t.send(track, pt, payload, marker, seq, ts)
	b.mixedDown.Add(1)
	return true
}
