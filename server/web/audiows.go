package web

import (
	"bufio"
	"context"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/gobwas/ws"
	"github.com/gofiber/fiber/v3"
	"github.com/softphone/softphone/audio"
	"github.com/softphone/softphone/server/httplimit"
)

// TabAudio is what the pages' audio socket needs of the bridge
// (*audio.Bridge satisfies it): which pages are open and in what state,
// and the fallback audio path.
type TabAudio interface {
	Present(tabID string, st audio.TabState)
	Focus(tabID string)
	Gone(tabID string)
	Holder() (tabID string, live bool)
	AttachPCM(tabID string) *audio.PCMLink
	Changes() <-chan struct{}
}

// wsMaxMessage bounds one message from a page: a state report or one
// microphone frame (20 ms at 16 kHz is 640 bytes).
const wsMaxMessage = 4096

// wsMaxSockets bounds the audio sockets open at once. A hijacked
// connection leaves fasthttp's count (Limits.Conns) and its deadlines: a
// program with a session, or a page that leaked its sockets, held as many
// as it opened, each a goroutine and a descriptor, for ever. A page has
// one (two for a moment while it reloads); more are refused with 503.
const wsMaxSockets = 64

// wsIdle is how long an audio socket may bring nothing: the phone pings
// the page every third of it (RFC 6455 5.5.2: the browser answers a ping
// with a pong by itself), so a live page, between calls or in a call over
// WebRTC where the socket is silent, always sends within it; a peer that
// is gone or stalled is closed after it. Zero: Limits.Idle (30 s).
func (s *Server) wsIdle() time.Duration {
	if d := s.cfg.Limits.Idle; d > 0 {
		return d
	}
	return httplimit.Default().Idle
}

// wsGUID is RFC 6455 section 1.3's key suffix.
const wsGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

type tabMsg struct {
	State string `json:"state"` // audio.TabState
	Focus bool   `json:"focus"` // the page is in front: it takes the audio
	Audio string `json:"audio"` // "pcm": start the fallback audio; "off": stop it
}

// audioSocket is GET /audio/ws?tab=ID, the page's own connection to the
// phone (RFC 6455 WebSocket on the authenticated session): the page reports
// its state (ready, microphone blocked, ...) and the socket's life is the
// page's life. When the page's RTCPeerConnection cannot connect, the call's
// audio travels here as 16 kHz linear frames. Between calls nothing is sent.
func (s *Server) audioSocket(c fiber.Ctx) error {
	ta, okB := s.cfg.Bridge.(TabAudio)
	if !okB {
		return c.Status(fiber.StatusServiceUnavailable).JSON(fiber.Map{"error": ErrNoAudio.Error()})
	}
	tab := c.Query("tab")
	key := c.Get("Sec-WebSocket-Key")
	if !tabID.MatchString(tab) || !strings.EqualFold(c.Get("Upgrade"), "websocket") ||
		c.Get("Sec-WebSocket-Version") != "13" || key == "" {
		return c.Status(fiber.StatusBadRequest).JSON(fiber.Map{"error": "need a WebSocket upgrade with tab"})
	}
	// Cross-site WebSocket hijacking: the session cookie is SameSite=Strict,
	// and the page's own origin is required as well.
	if c.Get("Origin") != "http://"+string(c.Request().Header.Host()) {
		return c.Status(fiber.StatusForbidden).JSON(fiber.Map{"error": "origin not allowed"})
	}
	if s.audioSocketsOpen() >= wsMaxSockets {
		return c.Status(fiber.StatusServiceUnavailable).JSON(fiber.Map{"error": ErrTooManySockets.Error()})
	}
	sum := sha1.Sum([]byte(key + wsGUID))
	c.Set("Upgrade", "websocket")
	c.Set("Connection", "Upgrade")
	c.Set("Sec-WebSocket-Accept", base64.StdEncoding.EncodeToString(sum[:]))
	c.Status(fiber.StatusSwitchingProtocols)
	id, _ := c.Locals(localsSession).(string)
	c.RequestCtx().Hijack(func(conn net.Conn) {
		defer s.sessions.hold(id)() // the page is in use while its socket is open
		s.runAudioSocket(conn, ta, tab)
	})
	return nil
}

// tabSocket is one page's socket; writes come from two goroutines.
type tabSocket struct {
	conn net.Conn
	mu   sync.Mutex
}

func (t *tabSocket) write(op ws.OpCode, p []byte) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return ws.WriteFrame(t.conn, ws.NewFrame(op, true, p))
}

// audioSocketsOpen is how many audio sockets are open.
func (s *Server) audioSocketsOpen() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.audioSockets
}

func (s *Server) runAudioSocket(conn net.Conn, ta TabAudio, tab string) {
	s.mu.Lock()
	if s.audioSockets >= wsMaxSockets { // upgraded by a race past the handler's check
		s.mu.Unlock()
		_ = ws.WriteFrame(conn, ws.NewCloseFrame(ws.NewCloseFrameBody(1013 /* Try Again Later, IANA WebSocket close codes */, "")))
		_ = conn.Close()
		return
	}
	s.audioSockets++
	if s.tabConns == nil {
		s.tabConns = map[string]int{}
	}
	s.tabConns[tab]++
	s.mu.Unlock()
	idle := s.wsIdle()
	sock := &tabSocket{conn: conn}
	stop := make(chan struct{})
	var link *audio.PCMLink
	defer func() {
		close(stop)
		if link != nil {
			link.Close()
		}
		// The tab is gone when its last socket closes. A reloaded page (the
		// same tab id, kept in sessionStorage) opens its new socket and
		// reports itself before the old page's socket is seen closing; that
		// close must not forget the new page (callbar.mjs at load 20: the
		// tab, focused, visible and ready, never got the audio).
		s.mu.Lock()
		s.audioSockets--
		s.tabConns[tab]--
		last := s.tabConns[tab] <= 0
		if last {
			delete(s.tabConns, tab)
		}
		s.mu.Unlock()
		if last {
			ta.Gone(tab)
		}
		_ = conn.Close()
		s.hub.poke()
	}()
	go func() { // the phone stopping ends the socket; a ping keeps a live page sending
		t := time.NewTicker(idle / 3)
		defer t.Stop()
		for {
			select {
			case <-s.hub.done:
				_ = conn.Close()
				return
			case <-stop:
				return
			case <-t.C:
				if sock.write(ws.OpPing, nil) != nil {
					_ = conn.Close()
					return
				}
			}
		}
	}()
	r := bufio.NewReaderSize(conn, 2*wsMaxMessage)
	for {
		// Each message (a pong too) gives the next its time anew.
		_ = conn.SetReadDeadline(time.Now().Add(idle))
		op, p, err := readMessage(r)
		if err != nil {
			_ = sock.write(ws.OpClose, ws.NewCloseFrameBody(ws.StatusProtocolError, ""))
			return
		}
		switch op {
		case ws.OpClose:
			_ = sock.write(ws.OpClose, nil)
			return
		case ws.OpPing:
			_ = sock.write(ws.OpPong, p)
		case ws.OpText:
			var m tabMsg
			if json.Unmarshal(p, &m) != nil {
				continue
			}
			if st, ok := audio.ParseTabState(m.State); ok {
				ta.Present(tab, st)
				if m.Focus {
					ta.Focus(tab)
				}
				s.hub.poke()
			}
			switch {
			case m.Audio == "pcm" && (link == nil || dropped(link)):
				// A link the bridge dropped (another connection of the
				// tab took its place) is replaced when the page asks
				// again: it was kept, and every later "pcm" ignored until
				// the page said "off", so the tab's call went silent. Only
				// the page's asking re-attaches: two pages of one tab id
				// cannot take it from each other without end.
				s.rtc.attach(tab, func() { link = ta.AttachPCM(tab) })
				go pumpPCM(sock, link, stop)
			case m.Audio == "off" && link != nil:
				link.Close()
				link = nil
			}
		case ws.OpBinary:
			if link != nil && len(p)%2 == 0 {
				pcm := make([]int16, len(p)/2)
				for i := range pcm {
					pcm[i] = int16(binary.LittleEndian.Uint16(p[2*i:]))
				}
				link.Mic(pcm)
			}
		}
	}
}

// dropped says whether the bridge has dropped link.
func dropped(link *audio.PCMLink) bool {
	select {
	case <-link.Done():
		return true
	default:
		return false
	}
}

// pumpPCM sends the bridge's frames for the page until the link or the
// socket ends.
func pumpPCM(sock *tabSocket, link *audio.PCMLink, stop <-chan struct{}) {
	buf := make([]byte, 0, 2048)
	for {
		select {
		case <-stop:
			return
		case <-link.Done():
			return
		case f := <-link.Out():
			buf = buf[:0]
			for _, v := range f {
				buf = binary.LittleEndian.AppendUint16(buf, uint16(v))
			}
			if sock.write(ws.OpBinary, buf) != nil {
				return
			}
		}
	}
}

// readMessage reads one whole, unfragmented client message of at most
// wsMaxMessage bytes (RFC 6455 5.2: client frames are masked).
func readMessage(r io.Reader) (ws.OpCode, []byte, error) {
	h, err := ws.ReadHeader(r)
	if err != nil {
		return 0, nil, err
	}
	if !h.Fin || !h.Masked || h.Length > wsMaxMessage || h.Rsv != 0 {
		return 0, nil, ErrBadSocketFrame
	}
	p := make([]byte, h.Length)
	if _, err := io.ReadFull(r, p); err != nil {
		return 0, nil, err
	}
	ws.Cipher(p, h.Mask, 0)
	return h.OpCode, p, nil
}

// watchAudio pokes the live pages at every change of the pages' audio
// states (a page ready, media flowing, a page gone).
func (s *Server) watchAudio(ctx context.Context) {
	ta, ok := s.cfg.Bridge.(TabAudio)
	if !ok {
		return
	}
	// The next change's channel is taken before the poke, so a change that
	// comes while the pages render the last one is never missed.
	ch := ta.Changes()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ch:
			ch = ta.Changes()
			s.hub.poke()
		}
	}
}
