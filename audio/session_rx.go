package audio

import (
	"net/netip"
	"time"

	"github.com/pion/rtp"
)

// readLoop receives the PBX's RTP until the socket closes.
func (s *Session) readLoop() {
	defer s.wg.Done()
	buf := make([]byte, 1500)
	pcm := make([]int16, maxFrame)
	var (
		ro  reorder
		det dtmfDetector
		p   rtp.Packet // reused: reorder clones what it keeps
	)
	// This reader also reads the tab's packets after each of the PBX's
	// (bridge_quiet.go).
	br := s.eng.bridge
	defer br.unquiet()
	handle := func(b []byte, from netip.AddrPort, now time.Time) {
		if s.stunIn(b) {
			return // the answer to our STUN Binding (stun.go), from its server
		}
		ok, latch := s.admit(from, now)
		if !ok {
			return // before Start, or a stray (session_source.go)
		}
		if s.dtlsIn(b) {
			if latch {
				s.dtlsSource(from) // the handshake's answers go there until SRTP latches (dtls.go)
			}
			return // DTLS (RFC 7983 7), not RTP
		}
		pkt, ok := s.srtpIn(b)
		if !ok {
			return // not ours: it does not authenticate (RFC 3711 3.3)
		}
		if p.Unmarshal(pkt) != nil {
			return
		}
		if latch && !s.latch(from, p.SSRC, now) {
			return // another port's, without the stream's SSRC (session_source.go)
		}
		s.hear(now)
		s.mu.Lock()
		started, codec, dtmfPT, dir := s.started, s.codec, s.dtmfPT, s.dir
		if s.passing && now.Sub(s.lastPass) >= passHold {
			s.kickLocked(now) // the tab stopped passing: the filler takes over (passCheck)
		}
		s.mu.Unlock()
		if !started {
			return
		}
		if p.PayloadType != codec.PT && (dtmfPT == 0 || p.PayloadType != dtmfPT) {
			return // comfort noise or a payload type we did not agree on
		}
		// Events take sequence numbers of the stream (RFC 4733 2.1): they
		// count as received, and the reorder step sees them go by, so the
		// audio after a digit is neither "loss" nor held back for them.
		event := dtmfPT != 0 && p.PayloadType == dtmfPT
		if event {
			det.feedAll(p.Timestamp, p.Marker, p.Payload, func(d byte) {
				if s.cfg.OnDTMF != nil {
					s.cfg.OnDTMF(d)
				}
			})
		}
		s.rx.update(p.SSRC, p.SequenceNumber, p.Timestamp, now, codec.ClockRate, !event)
		if dir == SendOnly || dir == Inactive {
			return // on hold: the far end is not heard
		}
		if event && (!ro.started || p.SSRC != ro.ssrc) {
			return // events from an SSRC of their own: no gap in the audio's numbers
		}
		ro.push(&p, func(q *rtp.Packet) {
			if q.PayloadType == codec.PT {
				s.deliver(q, codec, pcm)
			}
		})
	}
	for {
		n, from, err := s.conn.ReadFromAddrPort(buf)
		if err != nil {
			return
		}
		now := time.Now()
		handle(buf[:n], from, now)
		br.pump(true, now)
	}
}

// deliver hands one in-order packet from the PBX to the tab (as is when the
// tab speaks the same codec and hears only this call), and decodes it when
// the phone itself must hear it: transcoding, mixing, recording.
func (s *Session) deliver(p *rtp.Packet, codec Codec, pcm []int16) {
	passed := s.eng.bridge.down(s, p, codec)
	s.mu.Lock()
	conf, rec, dec, tap := s.inConf, s.rec, s.dec, s.tap
	s.mu.Unlock()
	if passed && conf == nil && rec == nil && tap == nil {
		return
	}
	n, err := dec.decode(p.Payload, pcm)
	if err != nil || n == 0 {
		return
	}
	frame := pcm[:n]
	if tap != nil {
		tap(frame)
	}
	if !passed {
		s.eng.bridge.pushPCM(s, frame)
	}
	if rec != nil {
		rec.remote.push(frame)
	}
	if conf != nil {
		conf.push(s, frame)
	}
}
