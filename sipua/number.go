package sipua

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/emiago/sipgo/sip"

	"github.com/softphone/softphone/store"
)

var schemeRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// dialSeparators are what people type between digits; the dialler drops them.
var dialSeparators = strings.NewReplacer(" ", "", "-", "", "(", "", ")", "", ".", "", "/", "", "\t", "")

// completeTarget completes a number or transfer target on an account the
// way rest-api.md says: sip:<number>@<account domain>; a target with a scheme
// or an '@' is used unchanged (only "sip:" is put before a bare user@host so
// it can be sent).
func completeTarget(number string, a store.Account) (string, error) {
	n := strings.TrimSpace(number)
	if n == "" {
		return "", ErrNoNumber
	}
	if schemeRE.MatchString(n) && !isDigitsColon(n) {
		return n, nil
	}
	if strings.Contains(n, "@") {
		return "sip:" + n, nil
	}
	host, _ := splitHostPort(a.Domain, 0)
	if host == "" {
		return "", fmt.Errorf("complete %q: %w", number, ErrAccountGone)
	}
	return "sip:" + dialSeparators.Replace(n) + "@" + host, nil
}

// isDigitsColon tells "123:4" (not a scheme) from "tel:123".
func isDigitsColon(s string) bool {
	i := strings.IndexByte(s, ':')
	return i > 0 && strings.Trim(s[:i], "0123456789+") == ""
}

// parseTarget completes and parses a target into a SIP URI.
func parseTarget(number string, a store.Account) (sip.Uri, error) {
	t, err := completeTarget(number, a)
	if err != nil {
		return sip.Uri{}, err
	}
	var u sip.Uri
	if err := sip.ParseUri(t, &u); err != nil {
		return sip.Uri{}, fmt.Errorf("target %q: %w", number, err)
	}
	return u, nil
}

// partyOf gives number, display name and URI of the other side from a
// From or To address.
func partyOf(display string, u sip.Uri) (number, name, uri string) {
	clean := sip.Uri{Scheme: u.Scheme, User: u.User, Host: u.Host, Port: u.Port}
	number = u.User
	if number == "" {
		number = u.Host
	}
	return number, strings.Trim(display, `"`), clean.String()
}
