package sipua

import "time"

// EventKind names what an Event tells.
type EventKind string

// Event kinds. The three call kinds have the names of webhooks.md.
const (
	EventCallStarted      EventKind = "call-started"
	EventCallStateChanged EventKind = "call-state-changed"
	EventCallEnded        EventKind = "call-ended"
	EventRegistration     EventKind = "registration"
	EventDTMF             EventKind = "dtmf"
	EventCallUpdated      EventKind = "call-updated" // mute, name or recording changed: no webhook (webhooks.md: muting sends none)
)

// Registration is the registration state of one account.
type Registration struct {
	AccountID string
	State     string // registered, registering, unregistered, failed, disabled
	Cause     string // for failed: the SIP status ("403 Forbidden") or "timeout"
	OK        bool   // this event is a successful registration
	Failed    bool   // this event is a failed registration
}

// Event is one immutable thing that happened, published on the Bus.
type Event struct {
	Seq          uint64 // increasing per bus, set by Publish
	Kind         EventKind
	At           time.Time // event_ts
	Call         Call      // for call events and DTMF
	Registration Registration
	Digit        string // for EventDTMF: the digit received
	// Recovered marks the call-ended published at start for a call a crash
	// cut off: its history entry is closed and its webhook is in the
	// outbox already (recover.go).
	Recovered bool
	Office    OfficeChange // for EventOffice and EventSubscriptionFailed
}

// Office event kinds (issue 19): a watched contact's line or presence, or an
// account's voicemail count changed; a subscription was refused or lost.
const (
	EventOffice             EventKind = "office"
	EventSubscriptionFailed EventKind = "subscription-failed"
)

// OfficeChange says what an office event is about.
type OfficeChange struct {
	AccountID string
	ContactID string // for line and presence changes
	Event     string // the event package: dialog, presence, message-summary
}
