package web

import (
	"context"
	"time"

	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/store"
)

// The interfaces below are what the pages use of the other parts; *sipua.Phone,
// *store.SettingsStore, *store.DB, *store.Secrets, *audio.Bridge and
// *webhook.Sender satisfy them.

// Calls is the call control the phone page uses.
type Calls interface {
	Dial(ctx context.Context, number, accountID string) (sipua.Call, error)
	Answer(ctx context.Context, id string) error
	Decline(ctx context.Context, id string) error
	Hangup(ctx context.Context, id string) error
	Hold(ctx context.Context, id string) error
	Resume(ctx context.Context, id string) error
	SetMute(ctx context.Context, id string, muted bool) error
	SendDTMF(ctx context.Context, id, digits string) error
	Transfer(ctx context.Context, id, target string) error
	AttendedTransfer(ctx context.Context, id, consultID string) error
	Conference(ctx context.Context, ids ...string) error
	Record(ctx context.Context, id string, on bool) error
	Calls() []sipua.Call
}

// Lines is the account side of the phone.
type Lines interface {
	Accounts() []AccountStatus
	SelectAccount(id string) error
	TestRegistration(ctx context.Context, a store.Account, password string) (string, error)
}

// Phone is all the pages need of *sipua.Phone.
type Phone interface {
	Calls
	Lines
}

// SettingsStore keeps settings.json; Update validates, saves and tells the
// parts that care, so a change takes effect at once.
type SettingsStore interface {
	Get() store.Settings
	Update(fn func(*store.Settings) error) (store.Settings, error)
}

// Secrets is the keyring.
type Secrets interface {
	Get(name string) (string, error)
	Set(name, value string) error
	Delete(name string) error
	Has(name string) bool
	Fallback() bool
}

// ContactStore is the address book.
type ContactStore interface {
	ListContacts(ctx context.Context, query string) ([]store.Contact, error)
	GetContact(ctx context.Context, id string) (store.Contact, error)
	CreateContact(ctx context.Context, c store.Contact) (store.Contact, error)
	UpdateContact(ctx context.Context, c store.Contact) (store.Contact, error)
	DeleteContact(ctx context.Context, id string) error
}

// HistoryStore is the call history.
type HistoryStore interface {
	ListHistory(ctx context.Context, f store.HistoryFilter) ([]store.HistoryEntry, error)
	GetHistory(ctx context.Context, id string) (store.HistoryEntry, error)
	SetHistoryNote(ctx context.Context, id, note string) error
	SetHistoryTags(ctx context.Context, id string, codes []string) error
}

// TaxonomyStore is the categories, tags and red flags.
type TaxonomyStore interface {
	ListTaxonomy(ctx context.Context) ([]store.TaxonomyEntry, error)
	GetTaxonomy(ctx context.Context, code string) (store.TaxonomyEntry, error)
	CreateTaxonomy(ctx context.Context, e store.TaxonomyEntry) error
	UpdateTaxonomy(ctx context.Context, e store.TaxonomyEntry) error
	RetireTaxonomy(ctx context.Context, code string) error
}

// RecordingStore lists recordings when the API's pages are off.
type RecordingStore interface {
	ListRecordings(ctx context.Context, limit int) ([]store.Recording, error)
}

// DB is the store as the pages use it.
type DB interface {
	ContactStore
	HistoryStore
	TaxonomyStore
	RecordingStore
}

// Bridge is the WebRTC side of the audio engine: one tab holds the audio.
type Bridge interface {
	Offer(ctx context.Context, tabID string, sdpOffer string) (string, error)
	Focus(tabID string)
	Attached() bool
}

// Webhooks is the webhook sender's delivery log as the Integration tab uses it.
type Webhooks interface {
	Deliveries(ctx context.Context, limit int) ([]store.Delivery, error)
	Resend(ctx context.Context, deliveryID string) error
}

// WebhookTester sends a test event and gives the receiver's status and body.
// Left nil, New takes Webhooks' own SendTest(ctx) (webhook.TestResult, error).
type WebhookTester func(ctx context.Context) (status int, body string, err error)

// APIAddr tells where the local API listens ("" when off), for the recordings link.
type APIAddr interface {
	Addr() string
}

// APIListenError is optional on APIAddr (*api.Server has it): why the API
// does not listen although it is switched on, nil otherwise, and the port
// that was tried.
type APIListenError interface {
	ListenError() (port int, err error)
}

// PerDay is the history chart's source; optional (the store may lack it).
type PerDay interface {
	HistoryPerDay(ctx context.Context, since time.Time) ([]DayCount, error)
}

// OriginAsks is the API's question box: web origins that want to use the
// local API wait for the person's Allow or Deny on the phone page (issue 12
// item 7). *api.Approvals satisfies it.
type OriginAsks interface {
	Asks() []string
	Answer(origin string, allow bool) error
	OnChange(fn func())
}
