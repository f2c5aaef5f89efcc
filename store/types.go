package store

import "time"

// Contact is one entry of the address book (rest-api.md "Contact").
type Contact struct {
	ID        string // UUID
	Name      string
	Number    string
	AccountID string // empty: tied to no line
	Watch     bool   // its line and presence are watched (issue 19)
}

// HistoryEntry is one call of the call history (rest-api.md "Call history
// entry"). It is written when the call starts and completed when it ends, so a
// crash loses nothing (Open is true until then).
type HistoryEntry struct {
	ID         string // UUID of the entry, not the call
	CallID     string // UUID of the call
	SeanceID   string
	AccountID  string
	Account    string // textual name of the line
	Direction  string // in, out
	Number     string
	URI        string
	Name       string
	Dialed     string
	Outcome    string // answered, missed, declined, failed; empty while open
	Answered   bool
	DurationS  float64
	Reason     string
	AnsweredBy string
	StartedAt  time.Time
	AnsweredAt time.Time // zero when never answered
	EndedAt    time.Time // zero while open
	Open       bool
	Declined   bool    // declined by this phone
	Jitter     float64 // ms, from RTCP; 0 when unknown
	Loss       float64 // fraction 0..1
	Note       string
	Tags       []string // taxonomy codes
	Recording  string   // recording id, empty when none
	Secure     bool     // the media was encrypted (SRTP)
	// SIPStatus is the final SIP status of a call that was refused or
	// failed (404, 486, 603, ...); 0 when none came or none is known.
	SIPStatus int
}

// HistoryFilter selects history entries. Zero value: newest 100.
type HistoryFilter struct {
	Limit     int
	Offset    int
	Missed    bool
	Declined  bool
	AccountID string
	Text      string // matches number, name or uri
}

// TaxonomyEntry is a category, tag or red flag (rest-api.md "Taxonomy entry").
type TaxonomyEntry struct {
	Code         string
	Kind         string // category, tag, red_flag
	Severity     string // red flags: low, medium, high
	Retired      bool
	Titles       map[string]string // language -> title
	Descriptions map[string]string // language -> description
	Triggers     []string          // red flags: phrases that flag a transcript
}

// Recording is one recorded call; the audio file is under recordings/.
type Recording struct {
	ID        string
	CallID    string
	SeanceID  string
	StartedAt time.Time
	DurationS float64
	SizeBytes int64
	Codec     string
	Path      string // relative to the home folder
	Number    string
	Name      string
}

// TranscriptSegment is one utterance of a transcript.
type TranscriptSegment struct {
	Speaker string  // local, remote
	StartS  float64 // seconds from the start of the recording
	EndS    float64
	Text    string
}

// Transcript is the text of one recording.
type Transcript struct {
	RecordingID string
	Status      string // pending, running, done, failed
	Error       string
	Recogniser  string
	Segments    []TranscriptSegment
	UpdatedAt   time.Time
}

// OutboxEvent is one webhook event waiting in the outbox (webhooks.md
// "Delivery rules"). Fields is the flat payload, every value a string.
type OutboxEvent struct {
	Seq        int64 // order of enqueueing; per call, events are sent in this order
	DeliveryID string
	CallID     string
	Event      string
	Fields     map[string]string
	Attempts   int
	NextAt     time.Time
	LastStatus int
	LastError  string
	CreatedAt  time.Time
}

// Delivery is one line of the delivery log.
type Delivery struct {
	DeliveryID string
	CallID     string
	Event      string
	Status     int
	Attempts   int
	LastError  string
	Delivered  bool
	At         time.Time
	Fields     map[string]string
}

// DayCount is the number of finished calls with one outcome on one day
// (local calendar day, YYYY-MM-DD).
type DayCount struct {
	Day     string
	Outcome string
	N       int
}
