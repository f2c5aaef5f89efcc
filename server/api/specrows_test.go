package api

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// This file is the spec's table as data: rows that hold for any phone with
// the interface on, every access group on and default settings. It runs
// against this package's own listener (TestSpecRows) and against any running
// phone whose base URL is in SOFTPHONE_API_URL (TestSpecRowsAgainstURL; with
// SOFTPHONE_API_TOKEN the token rows run too), so the black-box suite of the
// binary can reuse it.

// Kinds of field values checked by shape.
const (
	kUUID   = "uuid"   // UUID string
	kStr    = "string" // any string
	kNum    = "number"
	kBool   = "bool"
	kTS     = "ts"      // number (ms) or null
	kArr    = "array"   // JSON array
	kObj    = "object"  // JSON object
	kUUIDor = "uuid|''" // UUID or empty string
)

type specRow struct {
	name         string
	method, path string
	body         string
	hdr          []string
	needsToken   bool // runs only when the token is known; "{token}" in hdr is replaced
	status       int
	errMsg       string            // the body must be exactly {"error": errMsg}
	each         map[string]string // a JSON array whose every element has these fields
	object       map[string]string // a JSON object with these fields
	absent       []string          // keys that must not appear anywhere in the body
	contains     []string          // raw body contains each
	ctype        string            // Content-Type starts with
	header       map[string]string // response header contains value
}

const unknownUUID = "00000000-0000-4000-8000-000000000000"

var callFields = map[string]string{"id": kUUID, "seance_id": kUUID, "account_id": kUUIDor, "direction": kStr,
	"state": kStr, "number": kStr, "name": kStr, "uri": kStr, "dialed": kStr, "muted": kBool,
	"event_ts": kNum, "callstart_ts": kTS, "callstate_ts": kTS,
	"secure": kBool} // secure: issue 18 (media encryption), beside the spec's rows

var accountFields = map[string]string{"id": kUUID, "transport": kStr, "port": kNum, "registrar": kStr,
	"outbound_proxy": kStr, "expiry_s": kNum, "enabled": kBool, "state": kStr}

var historyFields = map[string]string{"id": kStr, "seance_id": kStr, "outcome": kStr, "answered": kBool,
	"duration_s": kNum, "number": kStr, "uri": kStr, "name": kStr, "dialed": kStr, "account": kStr,
	"account_id": kStr, "reason": kStr, "answered_by": kStr}

var contactFields = map[string]string{"id": kStr, "name": kStr, "number": kStr, "account_id": kUUIDor, "account": kStr}

var taxonomyFields = map[string]string{"code": kStr, "title": kStr, "description": kStr, "kind": kStr, "retired": kBool}

var counterNames = []string{"calls_incoming_total", "calls_outgoing_total", "calls_answered_total",
	"calls_missed_total", "calls_declined_total", "calls_failed_total", "registrations_succeeded_total",
	"registrations_failed_total", "webhooks_delivered_total", "webhooks_failed_total", "webhooks_dropped_total",
	"api_requests_total", "api_requests_refused_total"}

func specRows() []specRow {
	rows := []specRow{
		{name: "listing", method: "GET", path: "/", status: 200, object: map[string]string{"endpoints": kArr}, contains: []string{`"/accounts"`, `"/openapi.json"`}},
		{name: "openapi", method: "GET", path: "/openapi.json", status: 200, contains: []string{`"openapi": "3.1`}},
		{name: "metrics", method: "GET", path: "/metrics", status: 200, contains: counterNames, ctype: "text/plain"},
		{name: "ui", method: "GET", path: "/ui", status: 200, ctype: "text/html"},
		{name: "ui unknown recording", method: "GET", path: "/ui/recordings/" + unknownUUID, status: 404, errMsg: "no recording with that id"},
		{name: "ui unknown audio", method: "GET", path: "/ui/recordings/" + unknownUUID + "/audio", status: 404, errMsg: "no recording with that id"},
		{name: "contacts", method: "GET", path: "/contacts", status: 200, each: contactFields},
		{name: "contact unknown", method: "GET", path: "/contacts/" + unknownUUID, status: 404, errMsg: "no contact with that id"},
		{name: "history", method: "GET", path: "/history", status: 200, each: historyFields},
		{name: "history limit", method: "GET", path: "/history?limit=1", status: 200, each: historyFields},
		{name: "history missed", method: "GET", path: "/history?missed=true", status: 200, each: historyFields},
		{name: "history declined", method: "GET", path: "/history?declined=true", status: 200, each: historyFields},
		{name: "history both", method: "GET", path: "/history?missed=true&declined=true", status: 200, each: historyFields},
		{name: "history limit text", method: "GET", path: "/history?limit=ten", status: 400, errMsg: msgBadLimit},
		{name: "history limit zero", method: "GET", path: "/history?limit=0", status: 400, errMsg: msgBadLimit},
		{name: "history limit huge", method: "GET", path: "/history?limit=1001", status: 400, errMsg: msgBadLimit},
		{name: "history missed bad", method: "GET", path: "/history?missed=yes", status: 400, errMsg: "missed must be true or false"},
		{name: "calls", method: "GET", path: "/calls", status: 200, each: callFields},
		{name: "call unknown GET", method: "GET", path: "/calls/" + unknownUUID, status: 404, errMsg: "no call with that id"},
		{name: "dial without number", method: "POST", path: "/calls", body: `{}`, status: 400, errMsg: "a call needs a number"},
		{name: "dial empty number", method: "POST", path: "/calls", body: `{"number":"  "}`, status: 400, errMsg: "a call needs a number"},
		{name: "dial no body", method: "POST", path: "/calls", status: 400, errMsg: "a call needs a number"},
		{name: "dial malformed", method: "POST", path: "/calls", body: `{"number":`, status: 400, errMsg: msgMalformed},
		{name: "dial old name", method: "POST", path: "/calls", body: `{"number":"1","accountId":"x"}`, status: 400, errMsg: `unknown field "accountId"`},
		{name: "dial short account id", method: "POST", path: "/calls", body: `{"number":"1","account_id":"account-2"}`, status: 400, errMsg: msgBadAccountID},
		{name: "dial unknown account", method: "POST", path: "/calls", body: `{"number":"1","account_id":"` + unknownUUID + `"}`, status: 400, errMsg: msgNoAccount},
		{name: "dial number not string", method: "POST", path: "/calls", body: `{"number":123}`, status: 400, errMsg: "number must be a string"},
		{name: "dial not json", method: "POST", path: "/calls", body: `number=1`, hdr: []string{"Content-Type: application/x-www-form-urlencoded"}, status: 415, errMsg: msgNotJSON},
		{name: "dial too big", method: "POST", path: "/calls", body: `{"number":"` + strings.Repeat("1", 70000) + `"}`, status: 413, errMsg: msgTooLarge},
		{name: "dtmf unknown call", method: "POST", path: "/calls/" + unknownUUID + "/dtmf", body: `{"digits":"1"}`, status: 400, errMsg: "no call with that id"},
		{name: "transfer unknown call", method: "POST", path: "/calls/" + unknownUUID + "/transfer", body: `{"target":"2"}`, status: 400, errMsg: "no call with that id"},
		{name: "short call id", method: "POST", path: "/calls/call-3/hangup", status: 400, errMsg: "no call with that id"},
		{name: "wrong method", method: "DELETE", path: "/calls", status: 405, errMsg: msgWrongMethod, header: map[string]string{"Allow": "GET, POST"}},
		{name: "accounts", method: "GET", path: "/accounts", status: 200, each: accountFields, absent: []string{`"password"`}},
		{name: "settings", method: "GET", path: "/settings", status: 200, object: map[string]string{"api": kObj, "webhooks": kObj},
			contains: []string{`"disabled":`, `"silenced":`}, absent: []string{`"token":`, `"password":`, `"header_value":`}},
		{name: "taxonomy", method: "GET", path: "/taxonomy", status: 200, each: taxonomyFields},
		{name: "unknown path", method: "GET", path: "/nothing/here", status: 404, errMsg: "no such endpoint"},
		{name: "unknown path POST", method: "POST", path: "/nothing", body: `{}`, status: 404, errMsg: "no such endpoint"},
		{name: "old call path", method: "GET", path: "/calls/call-3/answer", status: 405, errMsg: msgWrongMethod},
		{name: "wrong token", method: "GET", path: "/accounts", hdr: []string{"Authorization: Bearer not-the-token"}, status: 401, errMsg: "wrong token"},
		{name: "token without scheme", method: "GET", path: "/accounts", hdr: []string{"Authorization: not-the-token"}, status: 401, errMsg: "wrong token"},
		{name: "write without token", method: "POST", path: "/contacts", body: `{"number":"1"}`, status: 405, errMsg: msgWrongMethod, header: map[string]string{"Allow": "GET"}},
		{name: "patch settings without token", method: "PATCH", path: "/settings", body: `{}`, status: 405, errMsg: msgWrongMethod},
		{name: "taxonomy write without token", method: "POST", path: "/taxonomy", body: `{}`, status: 405, errMsg: msgWrongMethod},
		{name: "webhook test without token", method: "POST", path: "/webhooks/test", status: 404, errMsg: "no such endpoint"},
		{name: "host rebinding", method: "GET", path: "/accounts", hdr: []string{"Host: evil.example:{port}"}, status: 403, errMsg: msgWrongHost},
		{name: "host wrong port", method: "GET", path: "/accounts", hdr: []string{"Host: 127.0.0.1:1"}, status: 403, errMsg: msgWrongHost},
		{name: "host localhost", method: "GET", path: "/accounts", hdr: []string{"Host: localhost:{port}"}, status: 200},
		// The CRM's origin is approved (api.allowed_origins).
		{name: "preflight", method: "OPTIONS", path: "/calls", hdr: []string{"Origin: http://crm.example:3000", "Access-Control-Request-Method: POST",
			"Access-Control-Request-Headers: content-type", "Access-Control-Request-Private-Network: true"}, status: 204,
			header: map[string]string{"Access-Control-Allow-Origin": "http://crm.example:3000", "Access-Control-Allow-Private-Network": "true",
				"Access-Control-Allow-Methods": "POST", "Access-Control-Allow-Headers": "Content-Type"}},
		{name: "origin null never asked", method: "GET", path: "/history", hdr: []string{"Origin: null"}, status: 403, errMsg: msgWrongOrigin},
		// With the token.
		{name: "listing with token", method: "GET", path: "/", hdr: []string{"Authorization: Bearer {token}"}, needsToken: true, status: 200, contains: []string{`"PATCH"`, `"/webhooks/test"`}},
		{name: "right token reads", method: "GET", path: "/accounts", hdr: []string{"Authorization: Bearer {token}"}, needsToken: true, status: 200, each: accountFields},
		{name: "contact create bad", method: "POST", path: "/contacts", body: `{"name":"x"}`, hdr: []string{"Authorization: Bearer {token}"}, needsToken: true, status: 400, errMsg: "a contact needs a number"},
		{name: "settings patch bad", method: "PATCH", path: "/settings", body: `{"api":{"port":0}}`, hdr: []string{"Authorization: Bearer {token}"}, needsToken: true, status: 400, contains: []string{"api.port"}},
		{name: "settings patch unknown key", method: "PATCH", path: "/settings", body: `{"nope":1}`, hdr: []string{"Authorization: Bearer {token}"}, needsToken: true, status: 400, contains: []string{"nope"}},
		{name: "history patch unknown", method: "PATCH", path: "/history/" + unknownUUID, body: `{"note":"x"}`, hdr: []string{"Authorization: Bearer {token}"}, needsToken: true, status: 404, errMsg: msgNoHistory},
		{name: "recording delete unknown", method: "DELETE", path: "/ui/recordings/" + unknownUUID, hdr: []string{"Authorization: Bearer {token}"}, needsToken: true, status: 404, errMsg: msgNoRecording},
		{name: "account delete unknown", method: "DELETE", path: "/accounts/" + unknownUUID, hdr: []string{"Authorization: Bearer {token}"}, needsToken: true, status: 404, errMsg: msgNoAccount},
		{name: "taxonomy retire unknown", method: "POST", path: "/taxonomy/no-such-code/retire", hdr: []string{"Authorization: Bearer {token}"}, needsToken: true, status: 404, errMsg: msgNoTaxonomy},
	}
	for _, a := range []string{"answer", "hangup", "hold", "resume", "dtmf", "transfer"} {
		rows = append(rows, specRow{name: a + " unknown call", method: "POST", path: "/calls/" + unknownUUID + "/" + a, status: 400, errMsg: "no call with that id"})
	}
	return rows
}

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// kindOK checks one JSON value against a kind.
func kindOK(v any, kind string) bool {
	switch kind {
	case kUUID:
		s, ok := v.(string)
		return ok && uuidRE.MatchString(s)
	case kUUIDor:
		s, ok := v.(string)
		return ok && (s == "" || uuidRE.MatchString(s))
	case kStr:
		_, ok := v.(string)
		return ok
	case kNum:
		_, ok := v.(float64)
		return ok
	case kBool:
		_, ok := v.(bool)
		return ok
	case kTS:
		if v == nil {
			return true
		}
		_, ok := v.(float64)
		return ok
	case kArr:
		_, ok := v.([]any)
		return ok
	case kObj:
		_, ok := v.(map[string]any)
		return ok
	}
	return false
}

func checkFields(t *testing.T, what string, m map[string]any, fields map[string]string) {
	t.Helper()
	for f, kind := range fields {
		v, ok := m[f]
		if !ok {
			t.Errorf("%s: no field %q in %v", what, f, m)
			continue
		}
		if !kindOK(v, kind) {
			t.Errorf("%s: field %q = %#v is not %s", what, f, v, kind)
		}
	}
}

// runSpecRows runs rows against base; port is the listener's port, tok the
// token ("" skips the token rows).
func runSpecRows(t *testing.T, base, port, tok string, rows []specRow) {
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			if r.needsToken && tok == "" {
				t.Skip("no token")
			}
			hdr := make([]string, len(r.hdr))
			for i, h := range r.hdr {
				hdr[i] = strings.NewReplacer("{token}", tok, "{port}", port).Replace(h)
			}
			res := do(t, r.method, base+r.path, r.body, hdr...)
			if res.status != r.status {
				t.Fatalf("%s %s: status %d, want %d; body %.300s", r.method, r.path, res.status, r.status, res.body)
			}
			if r.errMsg != "" {
				if got := res.errMsg(t); got != r.errMsg {
					t.Errorf("error %q, want %q", got, r.errMsg)
				}
			}
			if r.status >= 400 && r.errMsg == "" {
				res.errMsg(t) // still {"error": "..."}
			}
			if r.each != nil {
				var arr []map[string]any
				res.json(t, &arr)
				if arr == nil {
					t.Errorf("not a JSON array: %.200s", res.body)
				}
				for i, el := range arr {
					checkFields(t, r.path+"["+itoa(i)+"]", el, r.each)
				}
			}
			if r.object != nil {
				var obj map[string]any
				res.json(t, &obj)
				checkFields(t, r.path, obj, r.object)
			}
			body := string(res.body)
			compact := body
			if json.Valid(res.body) {
				var v any
				_ = json.Unmarshal(res.body, &v)
				b, _ := json.Marshal(v)
				compact = string(b)
			}
			for _, s := range r.contains {
				if !strings.Contains(body, s) && !strings.Contains(compact, s) {
					t.Errorf("body lacks %q: %.300s", s, body)
				}
			}
			for _, s := range r.absent {
				if strings.Contains(compact, s) {
					t.Errorf("body has %q", s)
				}
			}
			if r.ctype != "" && !strings.HasPrefix(res.header.Get("Content-Type"), r.ctype) {
				t.Errorf("Content-Type %q, want %q", res.header.Get("Content-Type"), r.ctype)
			}
			for h, want := range r.header {
				if !strings.Contains(res.header.Get(h), want) {
					t.Errorf("header %s = %q, want it to hold %q", h, res.header.Get(h), want)
				}
			}
		})
	}
}

// TestSpecRowsAgainstURL runs the table against a running phone:
// SOFTPHONE_API_URL=http://127.0.0.1:8377 [SOFTPHONE_API_TOKEN=...] go test -run AgainstURL ./server/api
func TestSpecRowsAgainstURL(t *testing.T) {
	base := strings.TrimSuffix(os.Getenv("SOFTPHONE_API_URL"), "/")
	if base == "" {
		t.Skip("SOFTPHONE_API_URL not set")
	}
	port := base[strings.LastIndex(base, ":")+1:]
	runSpecRows(t, base, port, os.Getenv("SOFTPHONE_API_TOKEN"), specRows())
}
