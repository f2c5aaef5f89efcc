package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/softphone/softphone/internal/netguard"
	"github.com/softphone/softphone/server/httplimit"
	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/store"
)

// Config holds what the API needs. Settings, Phone, DB, Secrets and Metrics
// are required; the rest may be nil.
type Config struct {
	retrying func(bool) // tests: hears after each apply whether a bind retry is armed

	Settings    Settings
	Phone       Phone
	DB          DB
	Secrets     Secrets
	Metrics     Counters
	WebhookTest WebhookTest // POST /webhooks/test; nil: not served
	Bus         *sipua.Bus  // call events for GET /events; nil: no events
	Home        string      // the phone's home folder; audio is under <Home>/recordings
	Logger      *slog.Logger
	// Limits bound every connection (timeouts, header size, count); zero
	// fields take httplimit.Default.
	Limits httplimit.Limits
	// AskWait is how long a request of an origin not yet approved waits for
	// the answer on the phone page; 0 takes askWait (30 s, issue 12 item 7).
	AskWait time.Duration
	// Audio says whether a browser tab holds the audio (audio.require_tab);
	// nil: calls are placed without asking.
	Audio AudioTabs
	// OpenPage opens the phone page in the desktop's browser and reports
	// whether it could (no desktop: false); nil: never.
	OpenPage func() bool
	// Transcripts runs a failed transcript again (the recording page's
	// "Try again"); nil: the button does nothing.
	Transcripts Transcripts
}

// Server is the local control API. It listens only while api.enabled and
// integration.enabled are both on, on 127.0.0.1:api.port.
type Server struct {
	cfg Config
	log *slog.Logger

	cur    atomic.Pointer[store.Settings] // settings as last seen
	kick   chan struct{}                  // settings changed
	events *backlog                       // call events for /events
	idem   *idempotency                   // Idempotency-Key of POST /calls
	hist   *histRows                      // entries of GET /history as rendered
	tok    tokenCache
	asks   *Approvals // web origins waiting for the person's yes

	routeTable []route
	routeIdx   routeIndex // candidates of routeTable by path (routeindex.go)

	mu        sync.Mutex
	live      *listener // nil while off
	listenErr error     // why it is not listening while switched on (the port taken); nil otherwise
	errPort   int       // the port listenErr is about

	untap      func()       // the /events backlog's bus tap, from New on: /events sees what the phone publishes at start
	failedPort int          // the port last found taken (Serve's goroutine only)
	pageOpened atomic.Int64 // unix ns when POST /calls last opened the phone page
}

// listener is one running fiber app on one port.
type listener struct {
	port  int
	ln    net.Listener
	app   *fiber.App
	hosts [][]byte      // the Host headers taken at once (loopbackHosts)
	stop  chan struct{} // closed when stopping: ends /events streams
	done  chan struct{} // closed when app.Listener returned
	listenerDoc
}

// shutdownGrace bounds how long a stopping listener waits for open requests.
const shutdownGrace = 2 * time.Second

// retryEvery is how often a listener that could not bind tries again.
const retryEvery = 2 * time.Second

// New returns the API server; it listens only once Serve runs.
func New(cfg Config) *Server {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	s := &Server{cfg: cfg, log: cfg.Logger.With("part", "api"),
		kick: make(chan struct{}, 1), events: newBacklog(backlogSize),
		idem: newIdempotency(idempotencyWindow), hist: newHistRows(),
		asks: newApprovals(cfg.Settings, cfg.AskWait)}
	st := cfg.Settings.Get()
	s.cur.Store(&st)
	s.routeTable = s.routes()
	s.routeIdx = newRouteIndex(s.routeTable)
	if cfg.Bus != nil {
		// Tapped here, not in Serve: the call-ended of calls a crash cut
		// off is published as the phone starts (issue 14), maybe before
		// Serve runs, and /events must have it. A tap, not a subscription
		// (issue 20): adding an event's frame takes a moment, a goroutine
		// woken for each event cost more.
		s.untap = cfg.Bus.Tap(func(e sipua.Event) bool { return sipua.IsCallEvent(e.Kind) }, s.events.add)
	}
	return s
}

// Addr is the address the API listens on, "" while it is off.
func (s *Server) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.live == nil {
		return ""
	}
	return s.live.ln.Addr().String()
}

// ListenError says why the API does not listen although it is switched on
// (another program holds its port): the Settings page tells the person,
// who would otherwise only see requests go unanswered. nil while it
// listens, while it is off, and before Serve first tried. port is the
// port tried: just after a change of api.port the answer may still be about
// the one before.
func (s *Server) ListenError() (port int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.errPort, s.listenErr
}

// Serve follows the settings until ctx is done: it starts the listener when
// the interface is switched on, stops it when switched off, and moves it when
// the port changes (rest-api.md 2-4: no restart needed).
func (s *Server) Serve(ctx context.Context) error {
	s.cfg.Settings.Watch(func(st store.Settings) {
		s.cur.Store(&st)
		s.tok.forget()
		select {
		case s.kick <- struct{}{}:
		default:
		}
	})
	if s.untap != nil {
		defer s.untap()
	}
	st := s.cfg.Settings.Get()
	s.cur.Store(&st)
	// The retry timer runs only while the port could not be bound: it
	// ticked every retryEvery for the life of the process, an idle phone's
	// wake-up for nothing (issue 20).
	retry := time.NewTimer(retryEvery)
	retry.Stop()
	defer retry.Stop()
	for {
		failed := s.apply(*s.cur.Load())
		if failed {
			retry.Reset(retryEvery)
		} else {
			retry.Stop()
		}
		if s.cfg.retrying != nil {
			s.cfg.retrying(failed)
		}
		select {
		case <-ctx.Done():
			s.stop()
			return nil
		case <-s.kick:
		case <-retry.C:
		}
	}
}

// apply makes the listener match st.
func (s *Server) apply(st store.Settings) (failed bool) {
	want := st.API.Enabled && st.Integration.Enabled
	s.mu.Lock()
	live := s.live
	s.mu.Unlock()
	if live != nil && (!want || live.port != st.API.Port) {
		s.stop()
		live = nil
	}
	if !want || live != nil {
		s.mu.Lock()
		s.listenErr = nil
		s.mu.Unlock()
		return false
	}
	l, err := s.start(st.API.Port)
	if err != nil {
		s.mu.Lock()
		s.listenErr, s.errPort = err, st.API.Port
		s.mu.Unlock()
		// Said once per port; the retry every few seconds stays quiet.
		if s.failedPort != st.API.Port {
			s.failedPort = st.API.Port
			s.log.Warn("local control API cannot listen; trying again every few seconds", "port", st.API.Port, "err", err)
		}
		return true
	}
	s.failedPort = 0
	s.mu.Lock()
	s.live = l
	s.listenErr = nil
	s.mu.Unlock()
	s.log.Info("local control API listening", "addr", l.ln.Addr().String())
	return false
}

// start binds 127.0.0.1:port (loopback only, rest-api.md 3) and serves it.
func (s *Server) start(port int) (*listener, error) {
	ln, err := net.Listen("tcp4", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil, fmt.Errorf("listen on 127.0.0.1:%d: %w", port, err)
	}
	l := &listener{port: port, ln: ln, hosts: loopbackHosts(port), stop: make(chan struct{}), done: make(chan struct{})}
	l.app = s.newApp(l)
	go func() {
		defer close(l.done)
		// Accept errors (EMFILE) are retried: fasthttp would end serving (issue 12).
		err := l.app.Listener(netguard.Retry(s.cfg.Limits.Listener(ln), s.log), fiber.ListenConfig{DisableStartupMessage: true})
		if err != nil && !errors.Is(err, net.ErrClosed) {
			s.log.Debug("local control API listener ended", "err", err)
		}
	}()
	return l, nil
}

// stop closes the listener itself (a fiber app stopped right after it started
// can otherwise keep serving, DEPENDENCIES.md), ends the event streams, and
// waits a little for requests in flight.
func (s *Server) stop() {
	s.mu.Lock()
	l := s.live
	s.mu.Unlock()
	if l == nil {
		return
	}
	close(l.stop)
	_ = l.ln.Close()
	// Addr says "" only once the port refuses connections (Serve is the
	// only caller, so nothing else changes s.live meanwhile).
	s.mu.Lock()
	s.live = nil
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	_ = l.app.ShutdownWithContext(ctx)
	select {
	case <-l.done:
	case <-ctx.Done():
	}
	s.log.Info("local control API stopped", "port", l.port)
}
