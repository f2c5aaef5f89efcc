package sipua

import (
	"errors"
	"net"
	"sync"

	"github.com/softphone/softphone/audio"
)

// silentMedia stands in for audio.Engine when the phone has none (tests,
// signalling-only use): each session binds a real UDP port, sends nothing,
// and reports RFC 4733 digits it receives.
type silentMedia struct{}

func (silentMedia) NewSession(_, _ string, onDTMF func(byte)) (MediaSession, error) {
	c, err := net.ListenUDP("udp4", &net.UDPAddr{})
	if err != nil {
		return nil, err
	}
	s := &silentSession{conn: c, onDTMF: onDTMF}
	go s.read()
	return s, nil
}

func (silentMedia) Conference(...MediaSession) error { return nil }

func (silentMedia) Codecs() []audio.Codec { return audio.CodecsByPriority(nil) }

type silentSession struct {
	conn   *net.UDPConn
	onDTMF func(byte)
	mu     sync.Mutex
	dtmfPT uint8
}

// errNoRTPEvents makes DTMF fall back to SIP INFO.
var errNoRTPEvents = errors.New("this media session sends no RTP events")

func (s *silentSession) LocalAddr() *net.UDPAddr { return s.conn.LocalAddr().(*net.UDPAddr) }
func (s *silentSession) Start(_ *net.UDPAddr, _ audio.Codec, pt uint8) error {
	s.mu.Lock()
	s.dtmfPT = pt
	s.mu.Unlock()
	return nil
}
func (s *silentSession) SetDirection(audio.Direction) {}
func (s *silentSession) SendDTMF(byte) error          { return errNoRTPEvents }
func (s *silentSession) SetMute(bool)                 {}
func (s *silentSession) Close() error                 { return s.conn.Close() }

// read reports each RFC 4733 event once, at its first end packet.
func (s *silentSession) read() {
	buf := make([]byte, 1500)
	var lastTS uint32
	seen := false
	for {
		n, _, err := s.conn.ReadFromUDP(buf)
		if err != nil {
			return
		}
		s.mu.Lock()
		pt := s.dtmfPT
		s.mu.Unlock()
		digit, ts, end, ok := rtpEvent(buf[:n], pt)
		if !ok || !end || (seen && ts == lastTS) {
			continue
		}
		seen, lastTS = true, ts
		if s.onDTMF != nil {
			s.onDTMF(digit)
		}
	}
}

// rtpEvent reads an RFC 4733 telephone-event packet of payload type pt.
func rtpEvent(p []byte, pt uint8) (digit byte, ts uint32, end bool, ok bool) {
	if pt == 0 || len(p) < 12 || p[0]>>6 != 2 || p[1]&0x7f != pt {
		return 0, 0, false, false
	}
	cc := int(p[0] & 0x0f)
	off := 12 + 4*cc
	if p[0]&0x10 != 0 { // header extension
		if len(p) < off+4 {
			return 0, 0, false, false
		}
		off += 4 + 4*(int(p[off+2])<<8|int(p[off+3]))
	}
	if len(p) < off+4 {
		return 0, 0, false, false
	}
	ts = uint32(p[4])<<24 | uint32(p[5])<<16 | uint32(p[6])<<8 | uint32(p[7])
	ev := p[off]
	end = p[off+1]&0x80 != 0
	const digits = "0123456789*#ABCD"
	if int(ev) >= len(digits) {
		return 0, ts, end, false
	}
	return digits[ev], ts, end, true
}
