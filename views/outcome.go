package views

import (
	"strconv"

	"github.com/softphone/softphone/store"
)

// Outcome is what a call's end is told from (issue 16 item 3): how the phone
// classified it, the hang-up reason, and the final SIP status of a refused
// outgoing call (RFC 3261 21: 404/484/604 no such user, 486/600 busy, 603
// decline, 408/480 no answer; 0 when no final response came at all).
type Outcome struct {
	Direction string // in, out
	Outcome   string // answered, missed, declined, failed; "" while open
	Reason    string // sipua.Reason*
	SIPStatus int
	Open      bool
}

// OutcomeOf is the outcome of a history entry.
func OutcomeOf(e store.HistoryEntry) Outcome {
	return Outcome{Direction: e.Direction, Outcome: e.Outcome, Reason: e.Reason, SIPStatus: e.SIPStatus, Open: e.Open}
}

// Why is the key of the words saying why the call ended ("why.busy", ...).
// The SIP status decides first: it is what the network said; then the
// phone's own reason; then the outcome alone.
func (o Outcome) Why() string {
	if o.Open || o.Outcome == "" {
		return "why.open"
	}
	switch o.SIPStatus {
	case 486, 600:
		return "why.busy"
	case 404, 484, 604:
		return "why.notfound"
	case 603:
		return "why.declined"
	case 408, 480, 487: // 487: the ringing was cancelled by the network, not by us
		return "why.noanswer"
	}
	switch o.Reason {
	case "busy":
		return "why.busy"
	case "no-answer":
		if o.Direction == "in" {
			return "why.missed"
		}
		return "why.noanswer"
	case "declined":
		if o.Direction == "in" {
			return "why.declinedbyyou"
		}
		return "why.declined"
	case "cancelled":
		if o.Direction == "in" {
			return "why.missed" // the caller gave up before anyone answered
		}
		return "why.local"
	case "local-hangup":
		return "why.local"
	case "remote-hangup":
		return "why.remote"
	case "transferred":
		return "why.transferred"
	case "interrupted":
		return "why.interrupted"
	case "not-encrypted":
		return "why.notencrypted"
	case "media-timeout":
		return "why.mediatimeout"
	case "failed":
		if o.SIPStatus == 0 {
			return "why.unreachable" // no response, a transport error
		}
		return "why.failed"
	}
	switch o.Outcome {
	case "missed":
		return "why.missed"
	case "declined":
		return "why.declined"
	case "failed":
		return "why.failed"
	}
	return "why.answered"
}

// Words is why the call ended, in the page's language.
func (o Outcome) Words(l L) string { return l.T(o.Why()) }

// Small is the SIP status in small print ("SIP 404"), or "" when the network
// gave none.
func (o Outcome) Small() string {
	if o.SIPStatus <= 0 {
		return ""
	}
	return "SIP " + strconv.Itoa(o.SIPStatus)
}

// Kind is the colour class of the outcome: ok (answered), missed, failed.
func (o Outcome) Kind() string {
	switch o.Why() {
	case "why.local", "why.remote", "why.transferred", "why.answered", "why.open":
		return "ok"
	case "why.missed", "why.noanswer":
		return "missed"
	}
	return "failed"
}
