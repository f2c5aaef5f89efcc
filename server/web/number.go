package web

import (
	"net/url"
	"strings"
)

// normalizeNumber turns what a person pastes or a link hands us into what the
// phone dials: "tel:+49-30-123;phone-context=x" -> "+4930123",
// "callto://bob" -> "bob", "(030) 123 45" -> "03012345". SIP addresses
// (sip:, sips:, or anything with @) are kept as they are, trimmed.
func normalizeNumber(in string) string {
	s := strings.TrimSpace(in)
	if u, err := url.PathUnescape(s); err == nil {
		s = strings.TrimSpace(u)
	}
	lower := strings.ToLower(s)
	switch {
	case strings.HasPrefix(lower, "sip:"), strings.HasPrefix(lower, "sips:"):
		return s
	case strings.HasPrefix(lower, "tel:"):
		s = s[len("tel:"):]
	case strings.HasPrefix(lower, "callto:"):
		s = strings.TrimPrefix(s[len("callto:"):], "//")
	}
	if i := strings.IndexByte(s, ';'); i >= 0 { // tel URI parameters, RFC 3966 3
		s = s[:i]
	}
	if strings.Contains(s, "@") {
		return strings.TrimSpace(s)
	}
	// Visual separators of RFC 3966 5.1.1 and what people paste around numbers.
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9', r == '*', r == '#':
			b.WriteRune(r)
		case r == '+' && b.Len() == 0:
			b.WriteRune(r)
		case strings.ContainsRune(" \t\u00a0-.()/[]", r):
		default:
			// Letters: a SIP user name, not a number; keep it whole.
			return strings.TrimSpace(s)
		}
	}
	return b.String()
}
