package webhook

import (
	"context"
	"log/slog"
	"time"

	"github.com/softphone/softphone/store"
)

// Outbox is what the sender needs of the store (store.DB implements it).
type Outbox interface {
	EnqueueOutboxBatch(ctx context.Context, evs []store.OutboxEvent, capacity int) (int, error)
	JournalOutbox(evs []store.OutboxEvent) error
	EnqueueJournaled(ctx context.Context, evs []store.OutboxEvent, capacity int) (int, error)
	DueOutbox(ctx context.Context, now time.Time, limit int) ([]store.OutboxEvent, error)
	OutboxAttempt(ctx context.Context, seq int64, status int, errText string, next time.Time) error
	OutboxDone(ctx context.Context, seq int64, status int, delivered bool, errText string) error
	OutboxLen(ctx context.Context) (int, error)
	Deliveries(ctx context.Context, limit int) ([]store.Delivery, error)
	GetDelivery(ctx context.Context, deliveryID string) (store.Delivery, error)
}

// SecretGetter reads a secret from the keyring (store.Secrets implements it).
// It answers store.ErrNoSecret (wrapped or not) when the secret is unset.
type SecretGetter interface {
	Get(name string) (string, error)
}

// Counters are the three webhook counters of rest-api.md (server/metrics
// implements them).
type Counters interface {
	WebhookDelivered()
	WebhookFailed()
	WebhookDropped()
}

// Secret names in the keyring (contracts.md).
const (
	SecretHeader  = "webhook-header"
	SecretSigning = "webhook-signing"
)

// Defaults of the choices webhooks.md leaves open ("not shown").
const (
	DefaultCapacity  = 10000            // outbox capacity, events
	DefaultWorkers   = 8                // deliveries in flight at once (one per call)
	DefaultTimeout   = 10 * time.Second // one request, connect to last byte of the answer
	DefaultRetryBase = 5 * time.Second  // first retry after 2.5-5 s
	DefaultRetryMax  = 10 * time.Minute // backoff ceiling (Retry-After may ask for more)
	DefaultMaxAge    = 24 * time.Hour   // an event still undelivered after this is given up
	DefaultPoll      = time.Second      // how often the outbox is looked at while deliveries are in flight or outcomes wait in memory (sleep.go)
	DefaultBuffer    = 4096             // bus subscription buffer, events
	ProductToken     = "softphone"      // User-Agent product token
)

// Config builds a Sender. Zero tuning values mean the defaults above.
type Config struct {
	Settings      store.Settings
	Secrets       SecretGetter // may be nil: no header value, no signing
	DB            Outbox
	Metrics       Counters // may be nil
	Version       string   // User-Agent version; "dev" when empty
	InstallMethod string   // User-Agent install method; "unknown" when empty
	Logger        *slog.Logger

	Capacity  int
	Workers   int
	Timeout   time.Duration
	RetryBase time.Duration
	RetryMax  time.Duration
	MaxAge    time.Duration
	Poll      time.Duration

	wall func() time.Time // tests: the wall clock the dispatcher compares with the monotonic one (clock.go)
}

func (c *Config) fill() {
	if c.Capacity <= 0 {
		c.Capacity = DefaultCapacity
	}
	if c.Workers <= 0 {
		c.Workers = DefaultWorkers
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.RetryBase <= 0 {
		c.RetryBase = DefaultRetryBase
	}
	if c.RetryMax <= 0 {
		c.RetryMax = DefaultRetryMax
	}
	if c.MaxAge <= 0 {
		c.MaxAge = DefaultMaxAge
	}
	if c.Poll <= 0 {
		c.Poll = DefaultPoll
	}
	if c.Version == "" {
		c.Version = "dev"
	}
	if c.InstallMethod == "" {
		c.InstallMethod = "unknown"
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Metrics == nil {
		c.Metrics = noCounters{}
	}
}

type noCounters struct{}

func (noCounters) WebhookDelivered() {}
func (noCounters) WebhookFailed()    {}
func (noCounters) WebhookDropped()   {}
