package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/softphone/softphone/internal/netguard"
	"github.com/softphone/softphone/server/httplimit"
	"github.com/softphone/softphone/sipua"
)

// DefaultPort is ui.port when the settings leave it 0.
const DefaultPort = 8376

// Config is what the pages need. Settings is required; every other part may
// be nil, and the pages then say that the part is not available.
type Config struct {
	Settings    SettingsStore
	Phone       Phone
	DB          DB
	Secrets     Secrets
	Bridge      Bridge
	Webhooks    Webhooks
	WebhookTest WebhookTester
	API         APIAddr
	Origins     OriginAsks // the API's questions about web origins; nil: none asked
	Bus         *sipua.Bus
	Home        string // the phone's home folder (desktop entry, ui-url file)
	Binary      string // path of the running binary, for the desktop entry; "" = os.Executable
	UserHome    string // the user's home for desktop entries; "" = os.UserHomeDir
	Logger      *slog.Logger
	// Limits bound every connection (timeouts, header size, count); zero
	// fields take httplimit.Default.
	Limits httplimit.Limits
	// KeyringFallback warns on every page that secrets are in a file.
	KeyringFallback bool
	// Ports tells when calls took RTP ports outside the full range; may be nil.
	Ports RTPPorts
}

// Server is the phone pages' HTTP server.
type Server struct {
	cfg  Config
	app  *fiber.App
	log  *slog.Logger
	ln   net.Listener
	port int

	sessions *sessions
	hub      *hub

	mu     sync.Mutex
	holder string // the tab that last took the audio
	// tabConns counts the open audio sockets of each tab (audiows.go): a
	// reloaded page opens its new one, with the same tab id, before the
	// server sees the old one close.
	tabConns     map[string]int
	audioSockets int      // all open audio sockets (wsMaxSockets)
	rtc          rtcConns // each tab's WebRTC connection by name (webrtc_conns.go)
	redial       string
	dialKey      string // the key of dialKeyFile (dialkey.go)
}

// New builds the server; nothing listens until Listen.
func New(cfg Config) (*Server, error) {
	if cfg.Settings == nil {
		return nil, ErrNoSettings
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.WebhookTest == nil && cfg.Webhooks != nil {
		cfg.WebhookTest = testerOf(cfg.Webhooks)
	}
	s := &Server{cfg: cfg, log: cfg.Logger, sessions: newSessions()}
	s.hub = newHub()
	if cfg.Origins != nil {
		cfg.Origins.OnChange(s.hub.poke) // a question comes or goes: open pages show it
	}
	s.watchDisk()
	s.watchHistory() // the missed-calls badge follows the history (words.go)
	fc := fiber.Config{
		Immutable:    true, // values from c.Params/c.Query outlive the handler
		BodyLimit:    8 << 20,
		ErrorHandler: s.errorHandler,
	}
	cfg.Limits.Apply(&fc)
	s.app = fiber.New(fc)
	s.app.Server().HeaderReceived = s.requestConfig // bodylimit.go
	s.routes()
	return s, nil
}

// Listen binds 127.0.0.1 at ui.port (another free port when it is taken) and
// returns the link to print: http://127.0.0.1:PORT/?key=<one-time key>.
func (s *Server) Listen() (string, error) {
	port := s.cfg.Settings.Get().UI.Port
	if port == 0 {
		port = DefaultPort
	}
	ln, err := net.Listen("tcp4", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		ln, err = net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			return "", fmt.Errorf("web: listen on 127.0.0.1: %w", err)
		}
	}
	s.ln = ln
	s.port = ln.Addr().(*net.TCPAddr).Port
	s.writeURLFile()
	s.writeDialKey()
	return s.LoginURL(), nil
}

// LoginURL returns a fresh link with a new one-time key (for example to open
// the page again from a second start of the program).
func (s *Server) LoginURL() string {
	return s.Origin() + "/?key=" + s.sessions.newKey()
}

// Origin is http://127.0.0.1:PORT.
func (s *Server) Origin() string {
	return "http://127.0.0.1:" + strconv.Itoa(s.port)
}

// Port is the bound port (0 before Listen).
func (s *Server) Port() int { return s.port }

// Serve serves until ctx is done, then shuts down: live streams end, the
// listener closes, open requests get a few seconds.
func (s *Server) Serve(ctx context.Context) error {
	if s.ln == nil {
		return ErrNotListening
	}
	hubCtx, stopHub := context.WithCancel(ctx)
	defer stopHub()
	go s.hub.run(hubCtx, s)
	errc := make(chan error, 1)
	go func() {
		// Accept errors (EMFILE) are retried: fasthttp would end serving (issue 12).
		errc <- s.app.Listener(netguard.Retry(s.cfg.Limits.Listener(s.ln), s.log), fiber.ListenConfig{DisableStartupMessage: true})
	}()
	select {
	case err := <-errc:
		return fmt.Errorf("web: serve: %w", err)
	case <-ctx.Done():
	}
	stopHub() // ends the event streams so shutdown need not wait for them
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.app.ShutdownWithContext(sctx)
	if errors.Is(err, fiber.ErrNotRunning) {
		err = nil
	}
	_ = s.ln.Close() // fiber may not close a listener it was handed when stopped early
	if serr := <-errc; serr != nil && !errors.Is(serr, net.ErrClosed) && err == nil {
		err = serr
	}
	if err != nil {
		return fmt.Errorf("web: shutdown: %w", err)
	}
	return nil
}
