package api

import (
	"strconv"
	"sync"
	"unicode/utf8"
)

// GET /calls is the API's hottest read (scripts and dashboards poll it).
// encoding/json's reflection was half of its handler's CPU; the calls are
// written here by hand instead, byte for byte what json.Marshal writes for
// []callJSON (calls_json_test.go checks that).

var callsBuf = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// appendCalls appends the JSON array of calls to b.
func appendCalls(b []byte, calls []callJSON) []byte {
	b = append(b, '[')
	for i := range calls {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendCall(b, &calls[i])
	}
	return append(b, ']')
}

func appendCall(b []byte, c *callJSON) []byte {
	b = append(b, `{"id":`...)
	b = appendJSONString(b, c.ID)
	b = append(b, `,"seance_id":`...)
	b = appendJSONString(b, c.SeanceID)
	b = append(b, `,"account_id":`...)
	b = appendJSONString(b, c.AccountID)
	b = append(b, `,"direction":`...)
	b = appendJSONString(b, c.Direction)
	b = append(b, `,"state":`...)
	b = appendJSONString(b, c.State)
	b = append(b, `,"number":`...)
	b = appendJSONString(b, c.Number)
	b = append(b, `,"name":`...)
	b = appendJSONString(b, c.Name)
	b = append(b, `,"uri":`...)
	b = appendJSONString(b, c.URI)
	b = append(b, `,"dialed":`...)
	b = appendJSONString(b, c.Dialed)
	b = append(b, `,"muted":`...)
	b = strconv.AppendBool(b, c.Muted)
	b = append(b, `,"event_ts":`...)
	b = strconv.AppendInt(b, c.EventTS, 10)
	b = append(b, `,"callstart_ts":`...)
	b = appendOptInt(b, c.CallstartTS)
	b = append(b, `,"callstate_ts":`...)
	b = appendOptInt(b, c.CallstateTS)
	b = append(b, `,"secure":`...)
	b = strconv.AppendBool(b, c.Secure)
	return append(b, '}')
}

func appendOptInt(b []byte, v *int64) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, *v, 10)
}

const hexDigits = "0123456789abcdef"

// appendJSONString quotes s as encoding/json does by default: \" \\ \n \r
// \t, other control characters and <, >, & as \u00XX, U+2028 and U+2029
// escaped, invalid UTF-8 as U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
