package sipua

import "time"

// Direction of a call: "in" or "out".
type Direction string

// The two directions of webhooks.md.
const (
	DirIn  Direction = "in"
	DirOut Direction = "out"
)

// Hang-up reasons (webhooks.md "reason"). ReasonNone until the call ends.
const (
	ReasonNone         = "none"
	ReasonLocalHangup  = "local-hangup"
	ReasonRemoteHangup = "remote-hangup"
	ReasonBusy         = "busy"
	ReasonNoAnswer     = "no-answer"
	ReasonCancelled    = "cancelled"
	ReasonDeclined     = "declined"
	ReasonFailed       = "failed"
	ReasonTransferred  = "transferred"
	ReasonCrashed      = "interrupted" // left open by a crash, closed at the next start
)

// History outcomes (rest-api.md "Call history entry").
const (
	OutcomeAnswered = "answered"
	OutcomeMissed   = "missed"
	OutcomeDeclined = "declined"
	OutcomeFailed   = "failed"
)

// Call is an immutable snapshot of a call, as published on the bus and
// returned by Phone.Calls. Times are zero when unknown.
type Call struct {
	ID         string // UUID issued by the phone
	SeanceID   string // UUID of the conversation (webhooks.md "seance_id")
	AccountID  string
	Account    string // <username>@<server>
	Direction  Direction
	State      CallState
	Number     string
	Name       string
	URI        string
	Dialed     string
	Muted      bool
	StartedAt  time.Time // callstart: when the phone first learned of the call
	StateAt    time.Time // callstate: when it entered State
	AnsweredAt time.Time
	EndedAt    time.Time
	Reason     string // ReasonNone until ended
	AnsweredBy string // "no" when a person answered
	Outcome    string // set when ended
	Declined   bool   // declined by this phone
	Recording  bool   // being recorded now
	// RecordingID is the call's recording (the first, when it was recorded
	// more than once), kept after the recording and the call end so the
	// history entry names it; "" when never recorded.
	RecordingID string
	Secure      bool // the media is encrypted (SRTP)
	TLS         bool // the signalling goes over TLS (sips, or the account's transport)
	// SIPStatus is the final status of an outgoing call that was refused
	// or failed (404, 486, 603, ...); 0 when no final answer came (no
	// response, a transport error) or the call was not refused.
	SIPStatus int // issue 16
}

// TalkSeconds is the talk time, answer to hang-up (webhooks.md duration_s);
// 0 before the call ends or when it was never answered.
func (c Call) TalkSeconds() float64 {
	if c.AnsweredAt.IsZero() || c.EndedAt.IsZero() {
		return 0
	}
	return c.EndedAt.Sub(c.AnsweredAt).Seconds()
}
