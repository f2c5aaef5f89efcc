package webhook

import (
	"bytes"
	"encoding/json"

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

// Payload is the flat object of webhooks.md for a call event (sipua.Flat,
// shared with GET /events); ok is false for events that are not webhooks.
func Payload(e sipua.Event) (p map[string]string, ok bool) { return sipua.Flat(e) }

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
