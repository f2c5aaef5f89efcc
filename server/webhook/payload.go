package webhook

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"time"

	"github.com/softphone/softphone/sipua"
)

// Fields lists the payload fields of webhooks.md in the spec's order; the
// JSON body and the GET query keep this order.
var Fields = []string{
	"event", "id", "seance_id", "direction", "state", "number", "name", "uri",
	"dialed", "account", "account_id", "event_ts", "callstart_ts",
	"callstate_ts", "duration_s", "reason", "answered_by",
}

// legacy maps the placeholders of earlier GET templates (webhooks.md
// "Request with method GET" 3, rest-api.md "Versioning") to current fields.
// [duration] is the talk time in seconds, duration_s; [startedAt] and
// [durationSeconds] are the other earlier names of rest-api.md.
var legacy = map[string]string{
	"accountId":       "account_id",
	"at":              "event_ts",
	"duration":        "duration_s",
	"durationSeconds": "duration_s",
	"answeredBy":      "answered_by",
	"seanceId":        "seance_id",
	"startedAt":       "callstart_ts",
}

// IsCallEvent tells whether k is one of the three webhook event kinds.
func IsCallEvent(k sipua.EventKind) bool {
	return k == sipua.EventCallStarted || k == sipua.EventCallStateChanged || k == sipua.EventCallEnded
}

// Payload is the flat object of webhooks.md for a call event: every value a
// string, an unknown moment "". ok is false for events that are not webhooks.
func Payload(e sipua.Event) (p map[string]string, ok bool) {
	if !IsCallEvent(e.Kind) {
		return nil, false
	}
	c := e.Call
	reason := sipua.ReasonNone
	duration := "0"
	state := c.State.String()
	if e.Kind == sipua.EventCallEnded {
		state = sipua.StateEnded.String()
		if c.Reason != "" {
			reason = c.Reason
		}
		duration = seconds(c.TalkSeconds())
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

// seconds is a duration as a decimal string with at most three decimals
// ("0", "12", "12.345"); never an exponent.
func seconds(s float64) string {
	if s <= 0 || math.IsNaN(s) || math.IsInf(s, 0) {
		return "0"
	}
	return strconv.FormatFloat(math.Round(s*1000)/1000, 'f', -1, 64)
}

// Body is the JSON object of the payload, keys in the spec's order, then any
// other key in the map (none today) is left out: the spec's set is exact.
func Body(p map[string]string) []byte {
	var b bytes.Buffer
	b.Grow(512)
	b.WriteByte('{')
	for i, k := range Fields {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		vb, _ := json.Marshal(p[k])
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes()
}
