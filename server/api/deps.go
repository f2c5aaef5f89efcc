package api

import (
	"context"
	"net/http"

	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/store"
)

// Phone is what the API asks of the phone (*sipua.Phone satisfies it).
type Phone interface {
	Dial(ctx context.Context, number, accountID string) (sipua.Call, error)
	Answer(ctx context.Context, id string) error
	Hangup(ctx context.Context, id string) error
	Hold(ctx context.Context, id string) error
	Resume(ctx context.Context, id string) error
	SendDTMF(ctx context.Context, id, digits string) error
	Transfer(ctx context.Context, id, target string) error
	Calls() []sipua.Call
	Call(id string) (sipua.Call, bool)
	Accounts() []sipua.AccountStatus
	// Busy lamps, presence and pickup of watched contacts (issue 19).
	ContactState(contactID string) sipua.ContactState
	Pickup(ctx context.Context, contactID string) (sipua.Call, error)
}

// DB is the part of *store.DB the API reads and writes.
type DB interface {
	ListContacts(ctx context.Context, query string) ([]store.Contact, error)
	GetContact(ctx context.Context, id string) (store.Contact, error)
	CreateContact(ctx context.Context, c store.Contact) (store.Contact, error)
	UpdateContact(ctx context.Context, c store.Contact) (store.Contact, error)
	DeleteContact(ctx context.Context, id string) error

	ListHistory(ctx context.Context, f store.HistoryFilter) ([]store.HistoryEntry, error)
	GetHistory(ctx context.Context, id string) (store.HistoryEntry, error)
	HistoryPage(ctx context.Context, f store.HistoryFilter, into []store.HistoryRef) ([]store.HistoryRef, error)
	HistoryRows(ctx context.Context, rows []int64) ([]store.HistoryRow, error)
	HistoryByCalls(ctx context.Context, callIDs []string) ([]store.HistoryEntry, error)
	// EditHistory replaces the note and the tags given (nil: kept) in one
	// transaction.
	EditHistory(ctx context.Context, id string, note *string, codes *[]string) error

	ListTaxonomy(ctx context.Context) ([]store.TaxonomyEntry, error)
	GetTaxonomy(ctx context.Context, code string) (store.TaxonomyEntry, error)
	CreateTaxonomy(ctx context.Context, e store.TaxonomyEntry) error
	UpdateTaxonomy(ctx context.Context, e store.TaxonomyEntry) error
	RetireTaxonomy(ctx context.Context, code string) error

	ListRecordings(ctx context.Context, limit int) ([]store.Recording, error)
	GetRecording(ctx context.Context, id string) (store.Recording, error)
	DeleteRecording(ctx context.Context, id string) error
	GetTranscript(ctx context.Context, recordingID string) (store.Transcript, error)
}

// Settings is the settings store (*store.SettingsStore satisfies it).
type Settings interface {
	Get() store.Settings
	Update(fn func(*store.Settings) error) (store.Settings, error)
	Watch(fn func(store.Settings))
}

// Secrets is the keyring (*store.Secrets satisfies it).
type Secrets interface {
	Get(name string) (string, error)
	Set(name, value string) error
	Delete(name string) error
	Has(name string) bool
}

// Counters is what the API counts and serves at /metrics
// (*metrics.Metrics satisfies it).
type Counters interface {
	APIRequest(refused bool)
	Handler() http.Handler
}

// WebhookTest sends the webhook test event (webhooks.md "Send a test event")
// and reports the receiver's answer. cmd wires it to the webhook sender:
//
//	func(ctx context.Context) (int, string, error) { r, err := sender.SendTest(ctx); return r.Status, r.Body, err }
//
// server/api cannot import server/webhook (nothing imports a server package).
type WebhookTest func(ctx context.Context) (status int, body string, err error)
