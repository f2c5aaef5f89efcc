package web

import (
	"unicode"
	"unicode/utf8"

	"github.com/softphone/softphone/views"
)

// Longest values the account form takes, in bytes: a DNS name has at most
// 253 characters (RFC 1035 2.3.4), with ":port" and brackets 261; names of
// people and users are far shorter than 128. A password of 1 KiB is more
// than any PBX asks for. Longer is refused, never cut (a cut value would be
// saved as something the person did not type).
const (
	maxNameBytes     = 128
	maxHostBytes     = 261
	maxPasswordBytes = 1024
	maxSuggestBytes  = 256 // GET /dial/suggest?number=
)

// badText says why v may not be taken as a form field's text ("" when it
// may): not UTF-8, a control character (CR and LF would start SIP headers of
// the sender's choosing in REGISTER's From and To; NUL ends strings in the
// keyring's C library), the line and paragraph separators, or longer than
// max bytes.
func badText(l views.L, v string, max int) string {
	if len(v) > max {
		return l.F("err.toolong", max)
	}
	if !utf8.ValidString(v) {
		return l.T("err.badtext")
	}
	for _, r := range v {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return l.T("err.badtext")
		}
	}
	return ""
}
