package sipua

import (
	"net"
	"sync"

	"github.com/softphone/softphone/audio"
)

// recMedia is a MediaEngine stand-in that records each Start of its
// sessions with the RTP heard (PCMU samples) up to then.
type recMedia struct {
	mu       sync.Mutex
	sessions []*recSession
}

type recStart struct {
	remote  *net.UDPAddr
	codec   string
	samples []float64 // PCMU heard before this Start
}

type recSession struct {
	conn    *net.UDPConn
	mu      sync.Mutex
	samples []float64
	starts  []recStart
}

func (m *recMedia) NewSession(_, _ string, _ func(byte)) (MediaSession, error) {
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return nil, err
	}
	s := &recSession{conn: c}
	go s.read()
	m.mu.Lock()
	m.sessions = append(m.sessions, s)
	m.mu.Unlock()
	return s, nil
}

func (m *recMedia) Conference(...MediaSession) error { return nil }
func (m *recMedia) Codecs() []audio.Codec            { return audio.CodecsByPriority(nil) }

func (m *recMedia) session(i int) *recSession {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.sessions[i]
}

func (s *recSession) read() {
	buf := make([]byte, 1500)
	for {
		n, _, err := s.conn.ReadFromUDP(buf)
		if err != nil {
			return
		}
		if n <= 12 || buf[1]&0x7f != 0 { // PCMU only, no CSRC/extension from sipp
			continue
		}
		s.mu.Lock()
		for _, b := range buf[12:n] {
			s.samples = append(s.samples, float64(ulawDecode(b))/32768)
		}
		s.mu.Unlock()
	}
}

func (s *recSession) LocalAddr() *net.UDPAddr { return s.conn.LocalAddr().(*net.UDPAddr) }
func (s *recSession) Start(remote *net.UDPAddr, c audio.Codec, _ uint8) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.starts = append(s.starts, recStart{remote: remote, codec: c.Name, samples: append([]float64(nil), s.samples...)})
	return nil
}
func (s *recSession) SetDirection(audio.Direction) {}
func (s *recSession) SendDTMF(byte) error          { return errNoRTPEvents }
func (s *recSession) SetMute(bool)                 {}
func (s *recSession) Close() error                 { return s.conn.Close() }

func (s *recSession) startsNow() []recStart {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]recStart(nil), s.starts...)
}

// ulawDecode is G.711 mu-law to linear.
func ulawDecode(u byte) int16 {
	u = ^u
	t := (int(u&0x0f) << 3) + 0x84
	t <<= (u & 0x70) >> 4
	if u&0x80 != 0 {
		return int16(0x84 - t)
	}
	return int16(t - 0x84)
}
