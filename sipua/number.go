package sipua

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/emiago/sipgo/sip"

	"github.com/softphone/softphone/store"
)

// dialSeparators are what people type between digits; the dialler drops them.
var dialSeparators = strings.NewReplacer(" ", "", "-", "", "(", "", ")", "", ".", "", "/", "", "\t", "", "\u00a0", "")

// checkChars refuses what no phone number or SIP URI may hold: control
// characters (CR and LF would end the Request-URI line and start headers of
// the attacker's choosing toward the PBX; NUL, TAB and the rest), '<' and '>'
// (they close the name-addr of To and Refer-To), and, inside a URI, spaces
// (RFC 3261 25.1: a URI has no unescaped space). Invalid UTF-8 too.
func checkChars(s string, uri bool) error {
	if !utf8.ValidString(s) {
		return ErrBadNumber
	}
	for _, r := range s {
		if unicode.IsControl(r) || r == '<' || r == '>' || r == '\u2028' || r == '\u2029' ||
			(uri && unicode.IsSpace(r)) {
			return ErrBadNumber
		}
	}
	return nil
}

// schemeOf gives the scheme of s as sipgo's URI parser reads it, or "" when
// s has none: a scheme is a letter followed by letters, digits, '+', '-'
// or '.' (RFC 3986 3.1), so "123:4" and "bob@host:5060" have none.
func schemeOf(s string) string {
	var u sip.Uri
	if err := sip.ParseUri(s, &u); err != nil || u.Scheme == "" {
		return ""
	}
	for i, r := range u.Scheme {
		letter := r >= 'a' && r <= 'z'
		if !letter && (i == 0 || !(r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.')) {
			return ""
		}
	}
	return u.Scheme
}

// completeTarget completes a number or transfer target on an account the
// way rest-api.md says: sip:<number>@<account domain>; a target with a scheme
// or an '@' is used unchanged (only "sip:" is put before a bare user@host so
// it can be sent). Characters no number or URI may hold: ErrBadNumber.
func completeTarget(number string, a store.Account) (string, error) {
	n := strings.TrimSpace(number)
	if n == "" {
		return "", ErrNoNumber
	}
	if err := checkChars(n, false); err != nil {
		return "", fmt.Errorf("number %q: %w", number, err)
	}
	if schemeOf(n) != "" {
		return n, checkURI(number, n)
	}
	if strings.Contains(n, "@") {
		return "sip:" + n, checkURI(number, n)
	}
	host, _ := splitHostPort(a.Domain, 0)
	if host == "" {
		return "", fmt.Errorf("complete %q: %w", number, ErrAccountGone)
	}
	t := "sip:" + dialSeparators.Replace(n) + "@" + host
	return t, checkURI(number, t)
}

func checkURI(number, uri string) error {
	if err := checkChars(uri, true); err != nil {
		return fmt.Errorf("number %q: %w", number, err)
	}
	return nil
}

// parseTarget completes and parses a target into a SIP URI.
func parseTarget(number string, a store.Account) (sip.Uri, error) {
	t, err := completeTarget(number, a)
	if err != nil {
		return sip.Uri{}, err
	}
	var u sip.Uri
	if err := sip.ParseUri(t, &u); err != nil {
		return sip.Uri{}, fmt.Errorf("target %q: %w: %w", number, ErrBadNumber, err)
	}
	return u, nil
}

// isBare tells a target that completeTarget completes on the account (a
// name or number: no scheme, no '@').
func isBare(number string) bool {
	n := strings.TrimSpace(number)
	return schemeOf(n) == "" && !strings.Contains(n, "@")
}

// transferTarget completes a transfer target (Refer-To, RFC 3515 2.1). The
// transferee dials it itself and knows nothing of our account, so a bare
// name or number gets the hop our own calls to it take (accountHop); a
// target with a scheme or '@' is used unchanged.
func transferTarget(number string, a store.Account) (sip.Uri, error) {
	u, err := parseTarget(number, a)
	if err != nil || !isBare(number) {
		return u, err
	}
	accountHop(&u, a)
	return u, nil
}

// accountHop puts the account's port and transport into u, a URI on the
// account's domain: our own requests to it leave for that port (line.prepare
// sets the destination), but a transferee resolves the URI on its own
// (RFC 3263), and without them it would try 5060 over UDP and miss a PBX
// elsewhere. The account's port belongs to the outbound proxy when one is
// set; then only a port written in the domain is taken.
func accountHop(u *sip.Uri, a store.Account) {
	_, port := splitHostPort(a.Domain, 0)
	if port == 0 && a.OutboundProxy == "" {
		port = a.Port
	}
	if u.Port == 0 {
		u.Port = port
	}
	if a.Transport == "tcp" || a.Transport == "tls" {
		if u.UriParams == nil {
			u.UriParams = sip.NewParams()
		}
		if _, ok := u.UriParams.Get("transport"); !ok {
			u.UriParams.Add("transport", a.Transport)
		}
	}
}

// partyOf gives number, display name and URI of the other side from a
// From or To address.
func partyOf(display string, u sip.Uri) (number, name, uri string) {
	clean := sip.Uri{Scheme: u.Scheme, User: u.User, Host: u.Host, Port: u.Port}
	number = u.User
	if number == "" {
		number = u.Host
	}
	return number, clipName(strings.Trim(display, `"`)), clean.String()
}

// Bounds of what a caller's From may bring in (RFC 3261 sets none): a
// display name is cut to maxNameRunes, an INVITE whose From user or host is
// longer than maxPartyBytes is refused (partyTooLong). A 64 KB name or
// number went whole into the history, the /events backlog (1,024 events)
// and every webhook, and six-fold into JSON for each '<'.
const (
	maxNameRunes  = 128
	maxPartyBytes = 256
)

// clipName cuts a display name to maxNameRunes characters, bytes that are
// not UTF-8 and control characters taken out.
func clipName(s string) string {
	s = strings.ToValidUTF8(s, "")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
	if utf8.RuneCountInString(s) <= maxNameRunes {
		return s
	}
	n := 0
	for i := range s {
		if n == maxNameRunes {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// partyTooLong says a From's user or host is beyond any real number or
// domain (maxPartyBytes).
func partyTooLong(u sip.Uri) bool {
	return len(u.User) > maxPartyBytes || len(u.Host) > maxPartyBytes
}

// referTarget reads the URI of a Refer-To header (RFC 3515 2.1) with
// sipgo's address parser; characters no URI may hold: ErrBadNumber.
func referTarget(v string) (string, error) {
	if strings.IndexFunc(v, unicode.IsControl) >= 0 || !utf8.ValidString(v) {
		return "", ErrBadNumber // the name-addr's own '<' '>' are fine here
	}
	var u sip.Uri
	hp := sip.NewParams()
	if _, err := sip.ParseAddressValue(strings.TrimSpace(v), &u, &hp); err != nil {
		return "", fmt.Errorf("refer-to: %w: %w", ErrBadNumber, err)
	}
	t := u.String()
	if err := checkChars(t, true); err != nil || u.Host == "" && u.Raw() == "" {
		return "", fmt.Errorf("refer-to %q: %w", t, ErrBadNumber)
	}
	return t, nil
}

// uriHeader turns a header of a target URI ("?Replaces=...", RFC 3261
// 19.1.1) into a header of the INVITE. Only Replaces is taken (RFC 3891,
// attended transfer): a URI handed to us by the other side must not set
// arbitrary headers toward the PBX. Nil: dropped.
func uriHeader(name, value string) (sip.Header, error) {
	if !strings.EqualFold(name, "Replaces") {
		return nil, nil
	}
	if err := checkChars(value, false); err != nil {
		return nil, err
	}
	if _, err := parseReplaces(value); err != nil {
		return nil, fmt.Errorf("replaces header %q: %w", value, ErrBadNumber)
	}
	return sip.NewHeader("Replaces", value), nil
}
