package web

import (
	"strings"

	"github.com/softphone/softphone/sipua"
)

// normalizeNumber turns what a person pastes or a link hands us into what the
// phone dials (sipua.NormalizeNumber: "tel:+49-30-123;phone-context=x" ->
// "+4930123", "(030) 123 45" -> "03012345", SIP addresses as they are).
// A number holding characters no number may hold (CR, LF, ...) is given
// back trimmed but otherwise as it came, so dialling it is refused with
// sipua.ErrBadNumber and the page says so (err.badnumber); it is idempotent
// either way.
func normalizeNumber(in string) string {
	out, err := sipua.NormalizeNumber(in)
	if err != nil {
		return strings.TrimSpace(in)
	}
	return out
}
