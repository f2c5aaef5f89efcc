package audio

import (
	"fmt"
	"time"

	"github.com/pion/rtp"
)

// passHold is how long after a passed-through packet the ticker stays quiet.
const passHold = 3 * frameMs * time.Millisecond

// passCheck is how long the send loop sleeps while the tab's packets pass
// through. It does not wake per packet or per frame then: every timer that
// fires wakes a thread that polls the network and the runtime's monitor
// thread, several context switches each, which cost more than the call's
// packets themselves (issue 20). Passing stops either with a change of
// state (mute, hold, conference, codec, DTMF: kickLocked) or with the tab
// falling silent, which the PBX's next packet notices (readLoop); this is
// the backstop for a PBX that sends nothing then.
const passCheck = time.Second

// sendLoop sends one 20 ms frame toward the PBX per tick unless the tab's
// packets are being passed through: the microphone (decoded), the other
// conference parties, or silence, so the stream never stops while the
// direction allows sending (NAT bindings and RTP timeouts stay happy).
// It runs on a timer that is only armed when there is something to send:
// an idle or passed-through session costs no wake-ups.
func (s *Session) sendLoop() {
	defer s.wg.Done()
	for {
		select {
		case <-s.done:
			return
		case now := <-s.timer.C:
			s.tick(now)
		}
	}
}

// armLocked schedules the next tick after d; s.mu is held.
func (s *Session) armLocked(d time.Duration) { s.timer.Reset(max(d, 0)) }

// kickPassing is kickLocked for a session whose tab's packets pass.
func (s *Session) kickPassing(now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.passing {
		s.kickLocked(now)
	}
}

// kickLocked makes the send loop look again passHold after the last passed
// packet (at once when that is over): something changed that may stop the
// passing. s.mu is held.
func (s *Session) kickLocked(now time.Time) {
	s.passing = false
	s.armLocked(passHold - now.Sub(s.lastPass))
}

func (s *Session) tick(now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started || s.closed || s.dtmfBusy || !(s.dir == SendRecv || s.dir == SendOnly) {
		s.next = time.Time{}
		return // Start, SetDirection and the end of a digit arm the timer again
	}
	if since := now.Sub(s.lastPass); since < passHold {
		s.next = time.Time{}
		if s.passing {
			if s.eng.count.Load() == 1 && s.eng.bridge.quieting() {
				// The only call's PBX is sending (the tab's quiet socket
				// is open for its packets): its next packet notices a
				// silent tab (readLoop), and the socket's closing when
				// the PBX falls silent kicks (bridge_quiet.go). No
				// backstop timer: its wake-ups are issue 20's.
				return
			}
			s.armLocked(passCheck) // the tab talks: see passCheck
		} else {
			s.armLocked(passHold - since)
		}
		return
	}
	s.passing = false
	// 20 ms steps on the wall clock, so the rate does not drift.
	if s.next.IsZero() || now.Sub(s.next) > 5*frameMs*time.Millisecond {
		s.next = now
	}
	s.next = s.next.Add(frameMs * time.Millisecond)
	s.armLocked(time.Until(s.next))
	frame := s.frame
	clear(frame)
	if s.dir == SendRecv {
		if !s.muted {
			s.mic.popPrimed(frame)
		}
		if s.inConf != nil {
			s.conf.popPrimed(frame)
		}
	}
	n, err := s.enc.encode(frame, s.payload)
	if err != nil {
		return
	}
	seq, ts, marker := s.out.gen(frameUnits(s.codec), now)
	s.writeLocked(s.codec.PT, seq, ts, marker, s.payload[:n])
}

// writeLocked sends one packet; s.mu is held.
func (s *Session) writeLocked(pt uint8, seq uint16, ts uint32, marker bool, payload []byte) {
	p := rtp.Packet{Header: rtp.Header{Version: 2, PayloadType: pt, SequenceNumber: seq,
		Timestamp: ts, SSRC: s.ssrc, Marker: marker}, Payload: payload}
	n, err := p.MarshalTo(s.pkt)
	if err != nil {
		return
	}
	out, ok := s.srtpOut(s.pkt[:n])
	if !ok {
		return
	}
	if _, err := s.conn.WriteToAddrPort(out, s.dtlsTo()); err == nil {
		s.sent++
		s.sentOctets += uint64(len(payload))
	}
}

// passUp sends a packet from the tab to the PBX as it is (same codec),
// renumbered into this stream. It reports false when the packet must take
// the decoding path instead (muted, held, conference, DTMF being sent).
func (s *Session) passUp(p *rtp.Packet, codec Codec, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started || s.closed || s.dir != SendRecv || s.muted || s.inConf != nil ||
		codecKind(codec.Name) != codecKind(s.codec.Name) {
		return false
	}
	if s.dtmfBusy {
		return true // swallowed: RFC 4733 2.5.1.1 events replace the audio
	}
	seq, ts, marker := s.out.pass(p.SSRC, p.SequenceNumber, p.Timestamp, frameUnits(s.codec), now)
	s.writeLocked(s.codec.PT, seq, ts, marker || p.Marker, p.Payload)
	s.lastPass = now
	s.passing = true // the silence filler waits while the tab talks (tick)
	return true
}

// pushMic queues decoded microphone audio for the next ticks.
func (s *Session) pushMic(pcm []int16) {
	s.mu.Lock()
	muted, rec := s.muted, s.rec
	s.mu.Unlock()
	if muted {
		return
	}
	s.mic.push(pcm)
	if rec != nil {
		rec.local.push(pcm)
	}
}

// recordLocal records passed-through microphone audio (decoded by the bridge).
func (s *Session) recordLocal(pcm []int16) {
	s.mu.Lock()
	muted, rec := s.muted, s.rec
	s.mu.Unlock()
	if rec != nil && !muted {
		rec.local.push(pcm)
	}
}

// recording reports whether the microphone must be decoded for a recording.
func (s *Session) recording() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rec != nil
}

// SendDTMF sends one digit as RFC 4733 events: three packets 20 ms apart with
// growing duration, then the end packet three times (2.5.1.4). It returns
// when the digit has been sent (about 80 ms).
func (s *Session) SendDTMF(digit byte) error {
	code, err := dtmfCode(digit)
	if err != nil {
		return err
	}
	s.mu.Lock()
	switch {
	case s.closed:
		s.mu.Unlock()
		return ErrClosed
	case !s.started:
		s.mu.Unlock()
		return ErrNotStarted
	case s.dtmfPT == 0:
		s.mu.Unlock()
		return ErrNoDTMF
	case s.dir != SendRecv && s.dir != SendOnly:
		s.mu.Unlock()
		return ErrNotSending
	}
	for s.dtmfBusy {
		s.mu.Unlock()
		select { // one digit after the other
		case <-s.done:
			return fmt.Errorf("send DTMF: %w", ErrClosed)
		case <-time.After(5 * time.Millisecond):
		}
		s.mu.Lock()
	}
	s.dtmfBusy = true
	unit := frameUnits(s.codec)
	seq, ts, _ := s.out.gen(unit, time.Now())
	pt := s.dtmfPT
	s.mu.Unlock()

	ev := dtmfEvent{event: code, volume: 10}
	for i := 1; i <= 6; i++ {
		if i > 1 {
			select {
			case <-s.done:
				return ErrClosed
			case <-time.After(frameMs * time.Millisecond):
			}
		}
		ev.duration = uint16(unit * uint32(min(i, 4)))
		ev.end = i >= 4
		s.mu.Lock()
		if i > 1 {
			seq++
		}
		s.writeLocked(pt, seq, ts, i == 1, ev.marshal())
		s.mu.Unlock()
	}
	s.mu.Lock()
	// The next audio packet follows the event (its timestamp + duration).
	s.out.seq, s.out.ts, s.out.lastDur, s.out.lastWall = seq, ts, uint32(ev.duration), time.Now()
	s.out.srcSet = false
	s.dtmfBusy = false
	s.kickLocked(time.Now())
	s.mu.Unlock()
	if s.isClosed() {
		return fmt.Errorf("send DTMF: %w", ErrClosed)
	}
	return nil
}

func (s *Session) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}
