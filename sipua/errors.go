package sipua

import "errors"

// Sentinel errors. The texts of the first five are the messages of
// rest-api.md "Errors", so server/api can show them as they are.
var (
	ErrNoCall      = errors.New("no call with that id")
	ErrNoNumber    = errors.New("a call needs a number")
	ErrNoDigits    = errors.New("no digits to send")
	ErrNoTarget    = errors.New("a transfer needs a target")
	ErrAccountGone = errors.New("the account this call is on is no longer set up")
	ErrNoAccount   = errors.New("no account to call from")

	// ErrBadDigit is a DTMF digit outside 0-9 * # A-D.
	ErrBadDigit = errors.New("not a DTMF digit")
	// ErrCallState is a command that does not fit the call's state (answer an
	// outgoing call, hold a ringing one).
	ErrCallState = errors.New("not possible in the call's state")
	// ErrTransferFailed is a transfer the other side or the target refused.
	ErrTransferFailed = errors.New("transfer failed")
	// ErrRegistration is a registration the registrar refused or never answered.
	ErrRegistration = errors.New("registration failed")
	// ErrNotServing is a command given before Serve started the SIP stack.
	ErrNotServing = errors.New("phone is not running")
)

// ErrBadNumber is a number, link or transfer target holding characters no
// phone number or SIP URI may hold (CR, LF, NUL, other controls, '<', '>',
// spaces inside a URI): nothing is sent (issue 12). server/api answers 400
// with this text.
var ErrBadNumber = errors.New("the number has characters a phone number cannot have")
