package api

import (
	"encoding/json"
	"unicode/utf8"
)

// flatKeys are the keys of sipua.Flat in the order encoding/json writes a
// map's keys (sorted).
var flatKeys = [...]string{"account", "account_id", "answered_by", "callstart_ts", "callstate_ts", "dialed",
	"direction", "duration_s", "event", "event_ts", "id", "name", "number", "reason", "seance_id", "state", "uri"}

// appendFlat appends p as json.Marshal writes it, byte for byte, without
// its reflection and key sorting (issue 20: an event's frame is made inside
// the phone's Publish). A value with anything json.Marshal would escape
// (quotes, backslashes, controls, <, >, &, U+2028, U+2029, invalid UTF-8)
// is written by json.Marshal itself, and so is a map with other keys.
func appendFlat(b []byte, p map[string]string) []byte {
	if len(p) != len(flatKeys) {
		j, _ := json.Marshal(p)
		return append(b, j...)
	}
	for _, k := range flatKeys {
		if _, ok := p[k]; !ok {
			j, _ := json.Marshal(p)
			return append(b, j...)
		}
	}
	b = append(b, '{')
	for i, k := range flatKeys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, k...)
		b = append(b, '"', ':')
		v := p[k]
		if plainJSON(v) {
			b = append(b, '"')
			b = append(b, v...)
			b = append(b, '"')
		} else {
			j, _ := json.Marshal(v)
			b = append(b, j...)
		}
	}
	return append(b, '}')
}

// plainJSON says whether json.Marshal writes s as it is, between quotes.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
		if c >= utf8.RuneSelf {
			return plainUTF8(s[i:])
		}
	}
	return true
}

// plainUTF8 is plainJSON for what is left from the first byte above ASCII.
func plainUTF8(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || r == '\u2028' || r == '\u2029' || r < 0x20 || r == '"' || r == '\\' || r == '<' || r == '>' || r == '&' {
			return false // RuneError: invalid UTF-8, or U+FFFD itself (json.Marshal keeps that, but rarely seen: the slow way is exact too)
		}
	}
	return true
}
