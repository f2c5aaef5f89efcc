package audio

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"
)

// SessionConfig names the call a session belongs to.
type SessionConfig struct {
	CallID, SeanceID string
	OnDTMF           func(digit byte) // RFC 4733 digits from the far end, once per event; must not block
}

// Session is the RTP (and RTCP) of one call toward the PBX.
type Session struct {
	eng  *Engine
	cfg  SessionConfig
	conn *rawUDP      // RTP
	ctrl *net.UDPConn // RTCP
	ssrc uint32
	rx   *rxStats
	mic  *fifo // the tab's microphone, decoded, when not passed through
	conf *fifo // the other conference parties, mixed

	done      chan struct{}
	closeOnce sync.Once
	wg        sync.WaitGroup

	mu         sync.Mutex
	closed     bool
	started    bool
	remote     *net.UDPAddr
	remoteAP   netip.AddrPort // remote, for the raw writes
	remoteCtrl *net.UDPAddr
	rtcpPort   int  // the far end's a=rtcp port, 0 for RTP + 1 (SetRTCPPort)
	latched    bool // the far end's first packet since Start was seen (latch)
	codec      Codec
	dtmfPT     uint8
	dir        Direction
	muted      bool
	enc        pcmEncoder
	dec        pcmDecoder
	out        rewriter
	lastPass   time.Time
	passing    bool // the tab's packets pass through: the send loop sleeps (passCheck)
	dtmfBusy   bool
	sent       uint64
	sentOctets uint64
	inConf     *conference
	rec        *recorder
	rtt        float64
	timer      *time.Timer // the send loop's; armed only when there is sending to do
	next       time.Time   // when the next 20 ms frame is due
	frame      []int16     // ticker scratch
	payload    []byte
	pkt        []byte // writeLocked's marshalled packet

	tap func(pcm []int16) // tests: decoded far-end audio

	srtp       atomic.Pointer[srtpState] // nil: clear RTP (srtp.go)
	heard      atomic.Int64              // when the far end was last heard, from monoBase (session_heard.go)
	srtpWanted atomic.Bool               // DTLS-SRTP under way: nothing clear in or out
	dtls       atomic.Pointer[dtlsComp]  // DTLS-SRTP on the RTP port (dtls.go)
	stunWait   atomic.Pointer[stunWait]  // a STUN Binding under way (stun.go)
	public     netip.AddrPort            // under mu: our RTP address as a STUN server saw it
	src        sourceFilter              // where RTP may come from (session_source.go), under mu
	dtlsFrom   netip.AddrPort            // under mu: where the far end's DTLS came from before the latch (dtls.go)
}

// NewSession binds an RTP port (and the RTCP port above it) and starts
// receiving; nothing is sent before Start.
func (e *Engine) NewSession(cfg SessionConfig) (*Session, error) {
	rtpConn, ctrl, err := e.listenPair()
	if err != nil {
		return nil, fmt.Errorf("new session for call %s: %w", cfg.CallID, err)
	}
	s := &Session{
		eng: e, cfg: cfg, conn: newRawUDP(rtpConn), ctrl: ctrl,
		ssrc: rand.Uint32(), rx: newRxStats(),
		mic: newFIFO(200), conf: newFIFO(200),
		done:    make(chan struct{}),
		out:     rewriter{seq: uint16(rand.Uint32()), ts: rand.Uint32()},
		frame:   make([]int16, frameLen),
		timer:   time.NewTimer(time.Hour),
		payload: make([]byte, 1500),
		pkt:     make([]byte, 1500),
	}
	s.timer.Stop()
	e.add(s)
	s.wg.Add(3)
	go s.readLoop()
	go s.sendLoop()
	go s.rtcpLoop()
	return s, nil
}

// LocalAddr is where the PBX sends RTP (for our SDP).
func (s *Session) LocalAddr() *net.UDPAddr { return s.conn.LocalAddr().(*net.UDPAddr) }

// Start sends to remote with codec; dtmfPT is the negotiated telephone-event
// payload type (0 = none). Called again on re-INVITE: the stream keeps its
// SSRC, sequence numbers and timestamps (RFC 3550 5.1), only the far end,
// codec or payload types change.
func (s *Session) Start(remote *net.UDPAddr, codec Codec, dtmfPT uint8) error {
	if remote == nil {
		return fmt.Errorf("start session of call %s: no remote address", s.cfg.CallID)
	}
	codec = withDefaults(codec)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("start session of call %s: %w", s.cfg.CallID, ErrClosed)
	}
	if !s.started || codecKind(codec.Name) != codecKind(s.codec.Name) {
		enc, err := newEncoder(codec)
		if err != nil {
			return fmt.Errorf("start session of call %s: %w", s.cfg.CallID, err)
		}
		dec, err := newDecoder(codec)
		if err != nil {
			return fmt.Errorf("start session of call %s: %w", s.cfg.CallID, err)
		}
		s.enc, s.dec = enc, dec
	}
	// A re-INVITE (hold, resume) that names the same address keeps where
	// the stream latched (RFC 7362 4): starting over would send to the
	// SDP's address behind a NAT again until the far end speaks.
	if ap := remote.AddrPort(); !s.started || ap != s.src.sdpAP {
		s.remote, s.remoteAP, s.latched = remote, ap, false
		s.src.sdp, s.src.sdpAP, s.src.latchd = ap.Addr().Unmap(), ap, netip.AddrPort{}
		s.remoteCtrl = s.ctrlFor(remote)
	}
	s.codec, s.dtmfPT, s.started = codec, dtmfPT, true
	s.hear(time.Now()) // Silence counts from here
	s.kickLocked(time.Now())
	return nil
}

// SetRTCPPort is the far end's a=rtcp port (RFC 3605) for its SDP
// address, 0 when its SDP names none (RTCP then goes to the RTP port + 1,
// RFC 3550 11). Our reports (and the RTCP component's DTLS) went to
// RTP + 1 whatever the SDP said: a far end that named another port (a
// NAT's or an SBC's pair of ports that are not adjacent) never got them.
// Set before Start, which uses it for a new address.
func (s *Session) SetRTCPPort(port int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rtcpPort = port
	if s.started && s.remote != nil {
		s.remoteCtrl = s.ctrlFor(s.remote)
	}
}

// ctrlFor is the RTCP address beside the RTP address remote: the a=rtcp
// port when remote is the SDP's address, the RTP port + 1 otherwise (a
// source a NAT chose has no a=rtcp). Under s.mu.
func (s *Session) ctrlFor(remote *net.UDPAddr) *net.UDPAddr {
	port := remote.Port + 1
	ap, sdp := remote.AddrPort(), s.src.sdpAP
	if s.rtcpPort != 0 && ap.Addr().Unmap() == sdp.Addr().Unmap() && ap.Port() == sdp.Port() {
		port = s.rtcpPort
	}
	return &net.UDPAddr{IP: remote.IP, Port: port, Zone: remote.Zone}
}

// SetDirection applies the SDP direction (RFC 3264 8.4). SendOnly is how we
// hold: the far end is not heard and the microphone is not sent (silence
// keeps the stream alive). RecvOnly (held by the far end): we hear it and send
// nothing. Inactive: nothing either way.
func (s *Session) SetDirection(d Direction) {
	s.mu.Lock()
	s.dir = d
	s.kickLocked(time.Now())
	s.mu.Unlock()
	s.mic.reset()
}

// Direction is the current media direction.
func (s *Session) Direction() Direction {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dir
}

// SetMute replaces the microphone with silence; packets keep flowing, so
// nothing is renegotiated.
func (s *Session) SetMute(on bool) {
	s.mu.Lock()
	s.muted = on
	s.kickLocked(time.Now())
	s.mu.Unlock()
	s.mic.reset()
}

// Codec is the codec toward the PBX (zero before Start).
func (s *Session) Codec() Codec {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.codec
}

// Stats gives jitter, loss and round-trip time of the call's media.
func (s *Session) Stats() Stats {
	j, loss, recv := s.rx.snapshot()
	s.mu.Lock()
	defer s.mu.Unlock()
	return Stats{Codec: s.codec.Name, Jitter: j, Loss: loss, RTT: s.rtt,
		PacketsSent: s.sent, PacketsReceived: recv}
}

// Close stops the session, ends its recording and frees its ports.
func (s *Session) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		conf, rec := s.inConf, s.rec
		s.inConf, s.rec = nil, nil
		s.mu.Unlock()
		if conf != nil {
			conf.leave(s)
		}
		if rec != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_, _ = rec.stop(ctx)
			cancel()
		}
		s.closeDTLS()
		close(s.done)
		s.conn.Close()
		s.ctrl.Close()
		s.wg.Wait()
		s.eng.remove(s)
		s.eng.bridge.forget(s)
	})
	return nil
}

func (s *Session) receiving() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.started && !s.closed && (s.dir == SendRecv || s.dir == RecvOnly)
}

func (s *Session) talking() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.started && !s.closed && s.dir == SendRecv
}

func (s *Session) conferenced() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inConf != nil
}
