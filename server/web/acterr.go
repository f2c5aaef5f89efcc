package web

import (
	"context"
	"errors"

	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/views"
)

// actionWords are the words a person reads when a page action (dial, hold,
// transfer, ...) fails, by the error behind it (issue 16 item 3): never the
// raw error, which is English, technical and may name addresses.
var actionWords = []struct {
	err error
	key string
}{
	{sipua.ErrBadNumber, "err.badnumber"},
	{sipua.ErrNoCall, "acterr.nocall"},
	{sipua.ErrNoNumber, "acterr.nonumber"},
	{sipua.ErrNoDigits, "acterr.nodigits"},
	{sipua.ErrBadDigit, "acterr.baddigit"},
	{sipua.ErrNoTarget, "acterr.notarget"},
	{sipua.ErrAccountGone, "acterr.accountgone"},
	{sipua.ErrNoAccount, "acterr.noaccount"},
	{sipua.ErrHoldFirst, "acterr.holdfirst"},
	{sipua.ErrCallState, "acterr.state"},
	{sipua.ErrTransferFailed, "acterr.transfer"},
	{sipua.ErrNotServing, "acterr.notserving"},
	{sipua.ErrNoListener, "acterr.nolistener"},
	{sipua.ErrNotRinging, "acterr.notringing"},
	{sipua.ErrNoVoicemail, "acterr.novoicemail"},
	{sipua.ErrSipsNeedsTLS, "acterr.sips"},
	{context.DeadlineExceeded, "acterr.timeout"},
}

// actionError words err in the page's language; what it does not know is
// "that did not work" (the log keeps the error).
func actionError(l views.L, err error) string {
	for _, w := range actionWords {
		if errors.Is(err, w.err) {
			return l.T(w.key)
		}
	}
	return l.T("acterr.other")
}
