package webhook

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/store"
)

// Sender is the webhook sender: see the package comment.
type Sender struct {
	cfg    Config
	db     Outbox
	log    *slog.Logger
	client *http.Client

	mu       sync.RWMutex
	all      store.Settings
	settings store.WebhookSettings
	on       bool // webhooks and the Integration module both enabled
	header   string
	signing  []byte
	secretAt time.Time

	subsMu  sync.Mutex
	subs    []*sipua.Subscription
	newSub  chan struct{}
	wake    chan struct{} // an event was enqueued or settings changed
	drops   atomic.Uint64 // events dropped, for the log
	wmu     sync.Mutex    // one outbox write at a time: SQLite has one writer, and waiting here is cheaper than its busy handler's sleeps
	handled atomic.Uint64 // bus events handled by the readers

	marks   marks   // outcomes not yet written (marks.go)
	readLog rateLog // failures of reading the outbox, logged at most once a minute

	clockMu sync.Mutex
	clock   clockWatch // the wall clock against the monotonic one (clock.go)

	armed func(time.Duration) // tests: hears each sleep the dispatcher arms (below 0: until poked)
}

// maxAnswerHeader bounds the header of a receiver's answer.
const maxAnswerHeader = 64 << 10

// New builds a Sender; it sends nothing until Serve runs.
func New(cfg Config) *Sender {
	cfg.fill()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = cfg.Workers * 2
	tr.MaxIdleConns = cfg.Workers * 4
	// A receiver's answer matters by its status alone: its header is read
	// up to 64 KiB (the default is 10 MiB, for each of the Workers at
	// once); a longer one fails the attempt like any bad answer.
	tr.MaxResponseHeaderBytes = maxAnswerHeader
	s := &Sender{
		cfg: cfg,
		db:  cfg.DB,
		log: cfg.Logger,
		client: &http.Client{
			Transport: tr,
			Timeout:   cfg.Timeout,
			// Redirects are not followed: a 3xx is not an acceptance (it is a
			// failure, retried), and the payload never goes to an address the
			// user did not configure.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		newSub: make(chan struct{}, 1),
		wake:   make(chan struct{}, 1),
	}
	s.followClock(context.Background(), time.Now()) // the first look: a step from here on is seen (clock.go)
	s.Apply(cfg.Settings)
	if j, ok := cfg.DB.(interface{ SetOutboxCapacity(int) }); ok {
		j.SetOutboxCapacity(cfg.Capacity) // the journal holds no more than the outbox
	}
	return s
}

// Apply takes changed settings into use at once: address, method, silenced
// events, header name, enable; the keyring secrets are read again too.
// Events already queued are sent to the new address with the new method.
// Whether an event is queued is decided when the sender reads it from the
// subscription, normally microseconds after it was published.
func (s *Sender) Apply(st store.Settings) {
	s.mu.Lock()
	s.all = st
	s.settings = st.Webhooks
	s.settings.Silenced = slices.Clone(st.Webhooks.Silenced)
	s.on = st.Webhooks.Enabled && st.Integration.Enabled && strings.TrimSpace(st.Webhooks.URL) != ""
	s.mu.Unlock()
	s.refreshSecrets()
	s.poke()
}

// secretTTL bounds how long a keyring secret changed without an Apply stays
// unnoticed.
const secretTTL = 30 * time.Second

// refreshSecrets reads the header value and the signing secret from the
// keyring. A secret that is not set is cleared; when the keyring fails, the
// value read before is kept (and the failure logged, never the value).
func (s *Sender) refreshSecrets() {
	header, hok := s.secret(SecretHeader)
	signing, sok := s.secret(SecretSigning)
	s.mu.Lock()
	defer s.mu.Unlock()
	if hok {
		s.header = header
	}
	if sok {
		s.signing = nil
		if signing != "" {
			s.signing = signingKey(signing)
		}
	}
	s.secretAt = time.Now()
}

func (s *Sender) secret(name string) (string, bool) {
	if s.cfg.Secrets == nil {
		return "", true
	}
	v, err := s.cfg.Secrets.Get(name)
	switch {
	case err == nil:
		return v, true
	case errors.Is(err, store.ErrNoSecret):
		return "", true
	}
	s.log.Warn("webhook: keyring unavailable, keeping the secret read before", "secret", name, "err", err)
	return "", false
}

// target snapshots what one request needs. Secrets older than secretTTL are
// refreshed in the background; the old ones serve meanwhile.
func (s *Sender) target() target {
	s.mu.RLock()
	t := target{
		url:        strings.TrimSpace(s.settings.URL),
		method:     strings.ToUpper(strings.TrimSpace(s.settings.Method)),
		headerName: strings.TrimSpace(s.settings.HeaderName),
		headerVal:  s.header,
		signing:    s.signing,
		userAgent:  ProductToken + "/" + s.cfg.Version + "-" + s.cfg.InstallMethod,
	}
	stale := time.Since(s.secretAt) > secretTTL
	s.mu.RUnlock()
	if stale {
		s.mu.Lock()
		if time.Since(s.secretAt) > secretTTL {
			s.secretAt = time.Now() // one refresh at a time
			go s.refreshSecrets()
		}
		s.mu.Unlock()
	}
	if t.method != http.MethodGet {
		t.method = http.MethodPost
	}
	if t.headerName == "" {
		t.headerName = "Authorization" // the spec's suggestion, when a value is saved without a name
	}
	return t
}

// wants tells whether an event of that kind is queued now.
func (s *Sender) wants(kind string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.on && !slices.Contains(s.settings.Silenced, kind)
}

func (s *Sender) enabled() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.on
}

// poke wakes the dispatcher without blocking.
func (s *Sender) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}
