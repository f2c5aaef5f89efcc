package audio

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// EngineConfig sets up the media engine.
type EngineConfig struct {
	RTPPortMin, RTPPortMax int      // UDP range for RTP (even) and RTCP (odd); 0,0 = any free port
	Codecs                 []string // priority (settings audio.codecs)
	Home                   string   // recordings go to <Home>/recordings
	BindIP                 string   // address RTP binds to; default 127.0.0.1
	Recordings             RecordingSink
	OnRecording            func(RecordingInfo) // a recording ended (stopped or call closed): e.g. start its transcript
	RTCPInterval           time.Duration       // sender reports; 0 = 5 s (RFC 3550 6.2)
	Logger                 *slog.Logger
}

// Engine makes the RTP sessions of calls and owns the WebRTC bridge to the tab.
type Engine struct {
	cfg    EngineConfig
	ip     net.IP
	log    *slog.Logger
	bridge *Bridge

	mu       sync.Mutex
	sessions map[*Session]struct{}
	count    atomic.Int32 // len(sessions), read under a session's lock (tick), where mu may not be taken
	outside  int          // sessions that got ports outside the full range (ports.go)

	stray atomic.Uint64 // RTP packets dropped for their source (session_source.go)
}

// NewEngine checks the configuration and prepares the bridge.
func NewEngine(cfg EngineConfig) (*Engine, error) {
	cfg, ip, err := checkConfig(cfg)
	if err != nil {
		return nil, err
	}
	e := &Engine{cfg: cfg, ip: ip, log: cfg.Logger, sessions: map[*Session]struct{}{}}
	b, err := newBridge(e)
	if err != nil {
		return nil, err
	}
	e.bridge = b
	return e, nil
}

func checkConfig(cfg EngineConfig) (EngineConfig, net.IP, error) {
	if cfg.BindIP == "" {
		cfg.BindIP = "127.0.0.1"
	}
	ip := net.ParseIP(cfg.BindIP)
	if ip == nil {
		return cfg, nil, fmt.Errorf("audio: bind address %q is not an IP address", cfg.BindIP)
	}
	if cfg.RTPPortMin < 0 || cfg.RTPPortMax > 65535 || cfg.RTPPortMin > cfg.RTPPortMax ||
		(cfg.RTPPortMin > 0 && cfg.RTPPortMax-cfg.RTPPortMin < 1) {
		return cfg, nil, fmt.Errorf("audio: RTP port range %d-%d is not usable", cfg.RTPPortMin, cfg.RTPPortMax)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return cfg, ip, nil
}

// Apply takes changed settings: codec priority, port range, bind address,
// home, sink. Running calls keep what they have; new sessions, offers and
// recordings use the new values. A bad configuration is refused whole.
func (e *Engine) Apply(cfg EngineConfig) error {
	cfg, ip, err := checkConfig(cfg)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	cfg.Logger = e.log // the logger stays the one the bridge was made with
	e.cfg, e.ip = cfg, ip
	return nil
}

// config is a copy of the current configuration.
func (e *Engine) config() EngineConfig {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.cfg
}

// Codecs are the audio codecs to offer, in priority order, then telephone-event.
func (e *Engine) Codecs() []Codec { return e.codecs() }

// Bridge is the WebRTC side: the browser tab that is speaker and microphone.
func (e *Engine) Bridge() *Bridge { return e.bridge }

// SetCodecs changes the codec priority (settings changed); new offers use it.
func (e *Engine) SetCodecs(names []string) {
	e.mu.Lock()
	e.cfg.Codecs = append([]string(nil), names...)
	e.mu.Unlock()
}

func (e *Engine) codecs() []Codec {
	e.mu.Lock()
	defer e.mu.Unlock()
	return CodecsByPriority(e.cfg.Codecs)
}

// listenPair binds RTP on an even port and RTCP on the next one (RFC 3550
// 11). In the configured range the search starts at a random pair and goes
// on from there (RFC 6056 3.3.1, its algorithm 1): ports handed out in
// order told an off-path stranger which port the next call would get, to
// aim its packets at (RFC 6056 1).
func (e *Engine) listenPair() (*net.UDPConn, *net.UDPConn, error) {
	e.mu.Lock()
	any, ip := e.cfg.RTPPortMin == 0, e.ip
	e.mu.Unlock()
	if any {
		return anyPair(ip)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	lo, hi := e.cfg.RTPPortMin+e.cfg.RTPPortMin%2, e.cfg.RTPPortMax
	n := (hi - lo + 1) / 2
	first := randomPair(n)
	for i := 0; i < n; i++ {
		p := lo + 2*((first+i)%n)
		rtp, err := net.ListenUDP("udp", &net.UDPAddr{IP: e.ip, Port: p})
		if err != nil {
			if errors.Is(err, syscall.EADDRINUSE) {
				continue
			}
			return nil, nil, fmt.Errorf("%w: %v", ErrNoPort, err)
		}
		rtcp, err := net.ListenUDP("udp", &net.UDPAddr{IP: e.ip, Port: p + 1})
		if err != nil {
			rtp.Close()
			continue
		}
		return rtp, rtcp, nil
	}
	return e.outsideRange()
}

func (e *Engine) add(s *Session) {
	e.mu.Lock()
	e.sessions[s] = struct{}{}
	e.count.Store(int32(len(e.sessions)))
	e.mu.Unlock()
}

func (e *Engine) remove(s *Session) {
	e.mu.Lock()
	delete(e.sessions, s)
	e.count.Store(int32(len(e.sessions)))
	e.mu.Unlock()
}

// soleAudible reports one session whose far end the tab hears now (started,
// and the direction lets us receive) and how many there are, without making
// a list (it runs for every packet).
func (e *Engine) soleAudible() (*Session, int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var one *Session
	n := 0
	for s := range e.sessions {
		if s.receiving() {
			one = s
			n++
		}
	}
	return one, n
}

// soleTalking is talking for the common case of one call, without a list.
func (e *Engine) soleTalking() (*Session, int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var one *Session
	n := 0
	for s := range e.sessions {
		if s.talking() {
			one = s
			n++
		}
	}
	return one, n
}

// talking lists the sessions the tab's microphone goes to (started, sendrecv).
func (e *Engine) talking() []*Session {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []*Session
	for s := range e.sessions {
		if s.talking() {
			out = append(out, s)
		}
	}
	return out
}

// Close ends every session and the bridge.
func (e *Engine) Close() error {
	e.mu.Lock()
	ss := make([]*Session, 0, len(e.sessions))
	for s := range e.sessions {
		ss = append(ss, s)
	}
	e.mu.Unlock()
	for _, s := range ss {
		s.Close()
	}
	return e.bridge.close()
}
