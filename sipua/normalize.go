package sipua

import (
	"net/url"
	"strings"
)

// NormalizeNumber turns what a person pastes or a link hands the phone into
// what it dials: "tel:+49-30-123;phone-context=x" -> "+4930123",
// "callto://bob" -> "bob", "(030) 123 45" -> "03012345". SIP addresses
// (sip:, sips:, or anything with '@') are kept as they are, trimmed, once
// sipgo's URI parser and checkChars take them. Characters no number or URI
// may hold, also when percent-encoded: ErrBadNumber.
//
// It is idempotent: NormalizeNumber(NormalizeNumber(x)) == NormalizeNumber(x)
// (FuzzNormalizeNumber). Links are percent-decoded once, and a result
// that would still decode differently ('%' left in a number) is refused,
// so a second pass finds nothing more to do.
func NormalizeNumber(in string) (string, error) {
	s := strings.TrimSpace(in)
	if s == "" {
		return "", nil
	}
	if err := checkChars(s, false); err != nil {
		return "", err
	}
	switch schemeOf(s) {
	case "sip", "sips":
		return s, checkChars(s, true)
	case "tel", "callto":
		if u, err := url.PathUnescape(s); err == nil {
			s = strings.TrimSpace(u)
		}
		if err := checkChars(s, false); err != nil {
			return "", err
		}
		_, s, _ = strings.Cut(s, ":")
		s = strings.TrimPrefix(s, "//")
		s, _, _ = strings.Cut(s, ";") // tel URI parameters, RFC 3966 3
		s = strings.TrimSpace(s)
		if schemeOf(s) != "" {
			return NormalizeNumber(s) // callto:sip:bob@host
		}
	}
	if strings.Contains(s, "%") {
		return "", ErrBadNumber // no number holds '%'; a name would decode again
	}
	if strings.Contains(s, "@") {
		if schemeOf(s) != "" {
			return "", ErrBadNumber
		}
		return s, checkChars("sip:"+s, true)
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
			return s, checkChars(s, true)
		}
	}
	return b.String(), nil
}
