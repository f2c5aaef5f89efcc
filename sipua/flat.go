package sipua

import (
	"math"
	"strconv"
	"time"
)

// IsCallEvent tells whether k is one of the three call event kinds that
// integrations hear about (webhooks.md "Events").
func IsCallEvent(k EventKind) bool {
	return k == EventCallStarted || k == EventCallStateChanged || k == EventCallEnded
}

// Flat is the flat object of webhooks.md for a call event, the same for the
// webhooks and for GET /events: every value a string, an unknown moment "",
// duration_s the talk time and reason "none" until call-ended. ok is false
// for events that are not call events.
func Flat(e Event) (p map[string]string, ok bool) {
	if !IsCallEvent(e.Kind) {
		return nil, false
	}
	c := e.Call
	reason, duration, state := ReasonNone, "0", c.State.String()
	if e.Kind == EventCallEnded {
		state = StateEnded.String()
		if c.Reason != "" {
			reason = c.Reason
		}
		duration = decimalSeconds(c.TalkSeconds())
	}
	answeredBy := c.AnsweredBy
	if answeredBy == "" && !c.AnsweredAt.IsZero() {
		answeredBy = "no" // a person answered unless the phone learned otherwise
	}
	return map[string]string{
		"event":        string(e.Kind),
		"id":           c.ID,
		"seance_id":    c.SeanceID,
		"direction":    string(c.Direction),
		"state":        state,
		"number":       c.Number,
		"name":         c.Name,
		"uri":          c.URI,
		"dialed":       c.Dialed,
		"account":      c.Account,
		"account_id":   c.AccountID,
		"event_ts":     millis(e.At),
		"callstart_ts": millis(c.StartedAt),
		"callstate_ts": millis(c.StateAt),
		"duration_s":   duration,
		"reason":       reason,
		"answered_by":  answeredBy,
	}, true
}

// millis is a moment as Unix milliseconds (UTC), "" when unknown.
func millis(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return strconv.FormatInt(t.UnixMilli(), 10)
}

// decimalSeconds is a duration as a decimal string with at most three
// decimals ("0", "12", "12.345"); never an exponent.
func decimalSeconds(s float64) string {
	if s <= 0 || math.IsNaN(s) || math.IsInf(s, 0) {
		return "0"
	}
	return strconv.FormatFloat(math.Round(s*1000)/1000, 'f', -1, 64)
}
