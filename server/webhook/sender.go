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

	mu        sync.RWMutex
	all       store.Settings
	settings  store.WebhookSettings
	on        bool // webhooks and the Integration module both enabled
	header    string
	signing   []byte
	secretAt  time.Time  // when header and signing were read
	secretGen uint64     // secretChanges when they were read
	readMu    sync.Mutex // one keyring read of them at a time (readSecrets)

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

// secretTTL bounds how long a secret read from the keyring is used before
// it is read again: a change made by another process (`softphone secret
// set` while the phone runs) tells this one nothing.
const secretTTL = 30 * time.Second

// secretChanges is the keyring's count of the changes made through it in
// this process (store.Secrets.Changes), 0 when it keeps none. The settings
// page and the API change secrets through the sender's own Secrets; an
// atomic load per delivery tells that what was read is old, without a
// keyring read (up to 3 s) per delivery.
func (s *Sender) secretChanges() uint64 {
	if c, ok := s.cfg.Secrets.(interface{ Changes() uint64 }); ok {
		return c.Changes()
	}
	return 0
}

// secretsStale tells whether the secrets read are older than secretTTL or
// older than a change of the keyring made in this process.
func (s *Sender) secretsStale() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return time.Since(s.secretAt) > secretTTL || s.secretGen != s.secretChanges()
}

// refreshSecrets reads the header value and the signing secret from the
// keyring. A secret that is not set is cleared; when the keyring fails, the
// value read before is kept (and the failure logged, never the value).
// Reads run one at a time, in the order they were asked for, so a read that
// began before a change never overwrites one made after it.
func (s *Sender) refreshSecrets() { s.readSecrets(true) }

// readSecrets is refreshSecrets; unless force, only when the secrets are
// stale (a read that waited for another's finds them fresh).
func (s *Sender) readSecrets(force bool) {
	s.readMu.Lock()
	defer s.readMu.Unlock()
	if !force && !s.secretsStale() {
		return
	}
	gen := s.secretChanges() // before the reads: a change during them is read again next time
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
	s.secretGen = gen
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

// target snapshots what one request needs. Secrets changed in this process
// since they were read, or read over secretTTL ago, are read again first,
// so this request carries the ones saved now. (They were read again in the
// background, and the old ones served meanwhile: for up to 30 s after the
// Settings page saved a new signing secret, until its settings' watcher
// applied them, and for the first delivery after a quiet spell.)
func (s *Sender) target() target {
	if s.secretsStale() {
		s.readSecrets(false)
	}
	s.mu.RLock()
	t := target{
		url:        strings.TrimSpace(s.settings.URL),
		method:     strings.ToUpper(strings.TrimSpace(s.settings.Method)),
		headerName: strings.TrimSpace(s.settings.HeaderName),
		headerVal:  s.header,
		signing:    s.signing,
		userAgent:  ProductToken + "/" + s.cfg.Version + "-" + s.cfg.InstallMethod,
	}
	s.mu.RUnlock()
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
