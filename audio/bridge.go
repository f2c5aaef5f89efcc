package audio

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pion/ice/v4"
	"github.com/pion/interceptor"
	"github.com/pion/webrtc/v4"
)

// Bridge is the WebRTC side of the engine: the browser tab that is the
// phone's speaker and microphone. Each open phone page makes one
// PeerConnection over loopback; the tab focused last (or offered last) holds
// the audio. Without a tab, calls go on and Attached reports false.
type Bridge struct {
	eng   *Engine
	me    *webrtc.MediaEngine
	se    webrtc.SettingEngine // each tab gets a copy with its own DTLS hooks (bridge_fast.go)
	socks *sockets             // the tabs' ICE sockets by local address
	done  chan struct{}
	wake  chan struct{} // audio queued for the mix
	wg    sync.WaitGroup

	passedDown, passedUp, mixedDown, mixedUp atomic.Uint64              // packets, for tests and figures
	fastIn, fastOut                          atomic.Uint64              // packets on the fast path (bridge_fast.go)
	quietIn, quietPion                       atomic.Uint64              // datagrams from the tab's quiet socket, and those of them handed to pion (bridge_quiet.go)
	quietF                                   atomic.Pointer[fastPath]   // the fast path whose quiet socket is open
	qtimer                                   atomic.Pointer[quietTimer] // the quiet socket's timer (bridge_quiet.go)

	mu      sync.Mutex
	closed  bool
	tabs    map[string]*tab     // audio connections (WebRTC or PCMLink)
	present map[string]TabState // open pages and what they report (bridge_presence.go)
	changed chan struct{}       // closed at every change of pages or holder
	focus   []string            // tab ids, the last usable one holds the audio
	fifos   map[*Session]*fifo  // far-end audio waiting for the mix toward the tab
	frame   []int16             // mixer scratch
	mixed   []byte              // mixer scratch: the encoded frame toward the tab
}

// webrtcCodecs are the codecs the tab may use, as Chrome names them, with
// both telephone-event clocks Chrome offers (8000 with G.711/G.722, 48000 with Opus).
var webrtcCodecs = []webrtc.RTPCodecParameters{
	{RTPCodecCapability: webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeOpus, ClockRate: 48000, Channels: 2, SDPFmtpLine: "minptime=10;useinbandfec=1"}, PayloadType: 111},
	{RTPCodecCapability: webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeG722, ClockRate: 8000}, PayloadType: 9},
	{RTPCodecCapability: webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypePCMU, ClockRate: 8000}, PayloadType: 0},
	{RTPCodecCapability: webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypePCMA, ClockRate: 8000}, PayloadType: 8},
	{RTPCodecCapability: webrtc.RTPCodecCapability{MimeType: "audio/telephone-event", ClockRate: 8000, SDPFmtpLine: "0-15"}, PayloadType: 126},
	{RTPCodecCapability: webrtc.RTPCodecCapability{MimeType: "audio/telephone-event", ClockRate: 48000, SDPFmtpLine: "0-15"}, PayloadType: 110},
}

func newBridge(e *Engine) (*Bridge, error) {
	m := &webrtc.MediaEngine{}
	for _, c := range webrtcCodecs {
		if err := m.RegisterCodec(c, webrtc.RTPCodecTypeAudio); err != nil {
			return nil, fmt.Errorf("audio: register %s: %w", c.MimeType, err)
		}
	}
	var se webrtc.SettingEngine
	// The tab is on this computer: host candidates on 127.0.0.1 and on the
	// machine's own (LAN) addresses, UDP4, no mDNS; ICE-lite, since the
	// browser does the checks. Default browsers pair nothing with 127.0.0.1
	// alone (Firefox never; Chromium only from a LAN address), so the LAN
	// address is offered too; localOnly (bridge_net.go) reads packets from
	// the machine's own addresses only. Link-local addresses are left out
	// (an interface's fe80/169.254 address is reachable by its neighbours
	// and never needed here).
	se.SetIncludeLoopbackCandidate(true)
	se.SetIPFilter(func(ip net.IP) bool { return ip.To4() != nil && !ip.IsLinkLocalUnicast() })
	se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4})
	se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	se.SetLite(true)
	rn, err := newRawNet()
	if err != nil {
		return nil, fmt.Errorf("audio: network for the tab: %w", err)
	}
	se.SetNet(rn)
	// The tab's RTP never reaches pion's ICE agent once the fast path is up
	// (bridge_fast.go), so only the browser's consent checks (RFC 7675 5.1:
	// every 4-6 s) show the pair alive: disconnected after 10 s without
	// one, failed 10 s later, as before (5 s + 15 s).
	se.SetICETimeouts(10*time.Second, 10*time.Second, 2*time.Second)
	// The bridge is the DTLS server toward the tab, so it sees the
	// handshake's secrets (bridge_fast.go).
	if err := se.SetAnsweringDTLSRole(webrtc.DTLSRoleServer); err != nil {
		return nil, fmt.Errorf("audio: DTLS role: %w", err)
	}
	b := &Bridge{
		eng:     e,
		me:      m,
		se:      se,
		socks:   rn.socks,
		done:    make(chan struct{}),
		wake:    make(chan struct{}, 1),
		tabs:    map[string]*tab{},
		present: map[string]TabState{},
		changed: make(chan struct{}),
		fifos:   map[*Session]*fifo{},
		frame:   make([]int16, frameLen),
		mixed:   make([]byte, 0, 1500),
	}
	b.wg.Add(1)
	go b.mixLoop()
	return b, nil
}

// newAPI is the pion API of one tab: no interceptors (NACK, TWCC, stats,
// reports: audio over loopback needs none of them, and they cost more CPU
// than the forwarding), and the DTLS hooks that hand this tab's SRTP keys
// to its fast path.
func (b *Bridge) newAPI(secrets *dtlsSecrets) *webrtc.API {
	se := b.se
	se.SetDTLSKeyLogWriter(secrets)
	se.SetDTLSServerHelloMessageHook(secrets.serverHello)
	return webrtc.NewAPI(webrtc.WithMediaEngine(b.me), webrtc.WithSettingEngine(se),
		webrtc.WithInterceptorRegistry(&interceptor.Registry{}))
}

// Offer answers the WebRTC offer of the phone page in tab tabID (a reloaded
// page replaces its old connection). The new tab takes the audio at once.
// The answer holds all ICE candidates (no trickle).
func (b *Bridge) Offer(ctx context.Context, tabID string, sdpOffer string) (string, error) {
	offered, err := offeredCodecs(sdpOffer)
	if err != nil {
		return "", err
	}
	prefs, codec, ok := b.preferences(offered)
	if !ok {
		return "", fmt.Errorf("%w: it offers none of our codecs", ErrBadOffer)
	}
	t, err := newTab(b, tabID, codec)
	if err != nil {
		return "", err
	}
	answer, err := t.negotiate(ctx, sdpOffer, prefs)
	if err != nil {
		t.close()
		return "", err
	}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		t.close()
		return "", fmt.Errorf("%w: bridge closed", ErrClosed)
	}
	old := b.tabs[tabID]
	b.tabs[tabID] = t
	b.focusLocked(tabID)
	b.changedLocked()
	b.mu.Unlock()
	if old != nil {
		old.close()
	}
	b.eng.log.Info("tab attached", "tab", tabID, "codec", codec.Name)
	return answer, nil
}

// preferences orders the offered codecs by our priority; the first is what
// we send to the tab and what the tab will send (it uses the answer's first).
func (b *Bridge) preferences(offered []webrtc.RTPCodecParameters) ([]webrtc.RTPCodecParameters, Codec, bool) {
	var prefs []webrtc.RTPCodecParameters
	var first Codec
	for _, c := range b.eng.codecs() {
		for _, o := range offered {
			if strings.EqualFold(o.MimeType, "audio/"+c.Name) && (c.Name != "telephone-event" || o.ClockRate == 8000 || o.ClockRate == 48000) {
				if len(prefs) == 0 {
					first = Codec{Name: c.Name, PT: uint8(o.PayloadType), ClockRate: o.ClockRate, Channels: o.Channels, Fmtp: o.SDPFmtpLine}
				}
				prefs = append(prefs, o)
			}
		}
	}
	return prefs, first, len(prefs) > 0 && first.Name != "telephone-event"
}

// Focus gives the audio to tabID (the page that was focused last).
func (b *Bridge) Focus(tabID string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, pc := b.tabs[tabID]
	if _, open := b.present[tabID]; pc || open {
		b.focusLocked(tabID)
		b.changedLocked()
	}
}

func (b *Bridge) focusLocked(tabID string) {
	out := b.focus[:0]
	for _, id := range b.focus {
		if id != tabID {
			out = append(out, id)
		}
	}
	b.focus = append(out, tabID)
}

// Close ends the connection of tab tabID (its page went away).
func (b *Bridge) Close(tabID string) {
	b.mu.Lock()
	t := b.tabs[tabID]
	b.dropLocked(tabID, t)
	b.changedLocked()
	b.mu.Unlock()
	if t != nil {
		t.close()
	}
}

func (b *Bridge) dropLocked(tabID string, t *tab) {
	if cur, ok := b.tabs[tabID]; !ok || cur != t {
		return
	}
	delete(b.tabs, tabID)
	if _, open := b.present[tabID]; open {
		return // the page stays in line for the audio of the next call
	}
	out := b.focus[:0]
	for _, id := range b.focus {
		if id != tabID {
			out = append(out, id)
		}
	}
	b.focus = out
}

// holder is the connected tab that holds the audio, or nil.
func (b *Bridge) holder() *tab {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := len(b.focus) - 1; i >= 0; i-- {
		if t := b.tabs[b.focus[i]]; t != nil && t.isConnected() {
			return t
		}
	}
	return nil
}

// Attached reports whether a tab holds the audio with its media flowing.
func (b *Bridge) Attached() bool {
	_, live := b.Holder()
	return live
}

// Tab reports which tab holds the audio ("" when none).
func (b *Bridge) Tab() string {
	id, _ := b.Holder()
	return id
}

func (b *Bridge) close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	tabs := b.tabs
	b.tabs, b.focus, b.present = map[string]*tab{}, nil, map[string]TabState{}
	b.changedLocked()
	b.mu.Unlock()
	close(b.done)
	b.wg.Wait()
	for _, t := range tabs {
		t.close()
	}
	if t := b.qtimer.Swap(nil); t != nil {
		t.close()
	}
	return nil
}
