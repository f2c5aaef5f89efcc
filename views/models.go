package views

import "github.com/softphone/softphone/store"

// Page is what every full page needs: language, theme, the CSRF token for
// forms and htmx requests, and which navigation entry is current.
type Page struct {
	L     L
	Theme string // light, dark, system
	CSRF  string
	Nav   string // phone, contacts, history, recordings, settings
	// RecordingsURL is the API's /ui when the local API is on; empty shows our own list.
	RecordingsURL string
	// SecretsFallback warns that secrets are kept in a file, not the keyring.
	SecretsFallback bool
	Flash           string
	Calls           []CallView // the live calls list, rendered at once
	Hotkeys         string     // JSON of settings hotkeys, for phone.ts
	// OriginAsks are web origins waiting for the person's Allow or Deny.
	OriginAsks  []string
	AudioHolder string // the tab holding the audio at render time ("" none)
	AudioLive   bool   // its media flows
	// DiskFull shows the banner that history and recordings cannot be saved.
	DiskFull bool
	// Notices tell what the phone did to live beside other programs (a
	// taken SIP port, a listener that cannot open, a full RTP range).
	Notices []string
	Missed  int         // missed calls since History was seen (issue 16)
	Ended   []EndedView // the call that has just ended, with why
	// Office is the header's presence and voicemail, rendered at the first
	// paint as the live stream sends it: filled only by the stream, the
	// header grew when its first state came (8 px in callbar.mjs) and
	// everything under it moved (callbar.mjs).
	Office *OfficeView
}

// AccountView is one line with its registration state.
type AccountView struct {
	ID, Name, State, Cause string
	Selected, Enabled      bool
	Voicemail              string // "2 new, 1 old" when the mailbox is watched and known (issue 19)
}

// CallView is one call in progress, as the phone page shows it.
type CallView struct {
	ID, AccountID, Account, Direction, State string
	Number, Name                             string
	Muted, Recording                         bool
	StateSinceMS, AnsweredMS                 int64  // unix ms; 0 when unknown
	Digits                                   string // DTMF received on the call
	Sent                                     string // DTMF sent from the pages on the call (issue 16)
	Secure, TLS                              bool   // media encrypted (SRTP); signalling over TLS
}

// PhoneData is the phone page.
type PhoneData struct {
	Accounts []AccountView
	Calls    []CallView
	Number   string // prefilled number (from /dial)
	Redial   string
	Recent   RecentData   // recent and missed calls (issue 16)
	Suggest  []Suggestion // the dial field's list
	Hotkeys  store.HotkeySettings
	Audio    store.AudioSettings
	Lamps    []LampView // the watched contacts at the first paint (the stream updates them)
}

// ContactsData is the contacts page.
type ContactsData struct {
	Query    string
	Contacts []store.Contact
	Accounts []AccountView
	Edit     store.Contact // the contact in the form; empty ID = new
	Errors   map[string]string
	Imported int
	Lines    map[string]string // contact id -> line state of watched contacts (issue 19)
	Lamps    []LampView        // the watched contacts at the first paint (the stream updates them)
}

// HistoryData is the history page.
type HistoryData struct {
	Filter   store.HistoryFilter
	Entries  []store.HistoryEntry
	Taxonomy []store.TaxonomyEntry
	Accounts []AccountView
	PerDay   []DayCount
	Page     int
	HasMore  bool
	// RecordingURL gives the address of a recording's page; empty when none is served.
	RecordingURL func(id string) string
}

// Errors maps a field name (the settings key, e.g. "api.port") to a message.
type Errors map[string]string

// DayCount is the number of calls of one outcome on one day (YYYY-MM-DD).
type DayCount = store.DayCount

// SettingsData is the settings page: every section, each its own form.
type SettingsData struct {
	S      store.Settings // with the *_saved fields filled in
	Errors Errors         // key -> message, next to the field
	Saved  string         // the section just saved
	// Accounts
	EditAccount store.Account // the account in the form; empty ID = new
	RegTest     string        // the PBX's answer to a registration test
	RegTestErr  string
	RegStates   map[string]AccountView // registration state by account id (live: the "regstates" event)
	// Integration
	WebhookTest    string
	WebhookTestErr string
	Deliveries     []store.Delivery
	APIAddr        string
	APIDown        string // switched on but not listening: "taken" (another program holds the port) or "failed"; "" otherwise
	// Taxonomy
	Taxonomy []store.TaxonomyEntry
	EditTax  store.TaxonomyEntry
	// Startup
	DesktopEntry string // path written by "handle tel: links"
	SIPTrace     bool   // the phone offers a SIP trace to download
	Fallback     bool
	Desktop      DesktopView // integrations in place on this computer
}

// DesktopView says which desktop integrations are in place (issue 17).
type DesktopView struct {
	OS           string // linux, windows, darwin
	Links, Login DesktopItem
}

// DesktopItem is one integration: State "none", "ours" (this binary and
// home) or "other" (another program or copy; Where says what it runs).
type DesktopItem struct {
	State, Where string
}
