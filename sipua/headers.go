package sipua

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
)

// This file parses the SIP input the phone reads beyond what sipgo parses:
// Replaces (RFC 3891), DTMF in INFO bodies, message/sipfrag NOTIFY bodies
// (RFC 3515), and escaped URI header values. FuzzHeaders covers all of it.

var errBadHeader = errors.New("malformed header")

// replaces is a parsed Replaces header: the dialog to take over.
type replaces struct {
	callID, toTag, fromTag string
	earlyOnly              bool
}

// parseReplaces reads "callid;to-tag=a;from-tag=b[;early-only]".
func parseReplaces(v string) (replaces, error) {
	parts := strings.Split(strings.TrimSpace(v), ";")
	r := replaces{callID: strings.TrimSpace(parts[0])}
	if r.callID == "" {
		return r, errBadHeader
	}
	for _, p := range parts[1:] {
		k, val, _ := strings.Cut(strings.TrimSpace(p), "=")
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "to-tag":
			r.toTag = strings.TrimSpace(val)
		case "from-tag":
			r.fromTag = strings.TrimSpace(val)
		case "early-only":
			r.earlyOnly = true
		}
	}
	if r.toTag == "" || r.fromTag == "" {
		return r, errBadHeader
	}
	return r, nil
}

// String writes the header value.
func (r replaces) String() string {
	return r.callID + ";to-tag=" + r.toTag + ";from-tag=" + r.fromTag
}

// escapeHeaderValue escapes a value for a URI header (RFC 3261 19.1.1:
// ?Replaces=...): everything but unreserved characters.
func escapeHeaderValue(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		ch := v[i]
		if ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || strings.IndexByte("-_.!~*'()", ch) >= 0 {
			b.WriteByte(ch)
			continue
		}
		b.WriteString("%" + strings.ToUpper(strconv.FormatUint(uint64(ch)>>4, 16)) + strings.ToUpper(strconv.FormatUint(uint64(ch)&15, 16)))
	}
	return b.String()
}

// unescape undoes %XX escapes of a URI header value; a bad escape is kept.
func unescape(v string) string {
	if s, err := url.PathUnescape(v); err == nil {
		return s
	}
	return v
}

// parseDTMFInfo reads the digit of an INFO body: application/dtmf-relay
// ("Signal=5\r\nDuration=160") or application/dtmf ("5").
func parseDTMFInfo(ctype string, body []byte) (byte, bool) {
	ct := strings.ToLower(strings.TrimSpace(ctype))
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = strings.TrimSpace(ct[:i])
	}
	switch ct {
	case "application/dtmf-relay":
		for _, line := range strings.Split(string(body), "\n") {
			k, v, ok := strings.Cut(line, "=")
			if ok && strings.EqualFold(strings.TrimSpace(k), "signal") {
				return dtmfDigit(strings.TrimSpace(v))
			}
		}
	case "application/dtmf":
		return dtmfDigit(strings.TrimSpace(string(body)))
	}
	return 0, false
}

// dtmfDigit maps a signal (digit or RFC 4733 event number) to 0-9*#A-D.
func dtmfDigit(s string) (byte, bool) {
	if len(s) == 1 {
		d := s[0]
		if d >= 'a' && d <= 'd' {
			d -= 'a' - 'A'
		}
		if validDigit(d) {
			return d, true
		}
		return 0, false
	}
	if n, err := strconv.Atoi(s); err == nil && n >= 10 && n <= 15 {
		return "*#ABCD"[n-10], true
	}
	return 0, false
}

func validDigit(d byte) bool {
	return d >= '0' && d <= '9' || d == '*' || d == '#' || d >= 'A' && d <= 'D'
}

// parseSipfrag reads the status line of a message/sipfrag body
// ("SIP/2.0 200 OK"), the progress of a REFER (RFC 3515 2.4.5).
func parseSipfrag(body []byte) (int, string, bool) {
	line, _, _ := strings.Cut(string(body), "\n")
	line = strings.TrimSpace(line)
	rest, ok := strings.CutPrefix(line, "SIP/2.0 ")
	if !ok {
		return 0, "", false
	}
	code, reason, _ := strings.Cut(rest, " ")
	n, err := strconv.Atoi(code)
	if err != nil || n < 100 || n > 699 {
		return 0, "", false
	}
	return n, reason, true
}
