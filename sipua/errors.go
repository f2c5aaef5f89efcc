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
	// ErrNoListener is a call on an account whose transport has no SIP
	// listener (it could not open; ListenStates says why).
	ErrNoListener = errors.New("no SIP listener for the account's transport")
	// ErrSubscription is a SUBSCRIBE or PUBLISH the PBX refused or never answered.
	ErrSubscription = errors.New("subscription failed")
	// ErrNotRinging is a pickup of a contact whose line is not ringing.
	ErrNotRinging = errors.New("the contact's line is not ringing")
	// ErrNoVoicemail is "Call voicemail" on an account without voicemail_number.
	ErrNoVoicemail = errors.New("the account has no voicemail number")
	// errNotEncrypted is media that cannot be encrypted where it must be
	// (488 for an offer, the end of an outgoing call for an answer).
	errNotEncrypted = errors.New("media not encrypted")
	// ErrSipsNeedsTLS is a sips: address dialled on an account that does
	// not speak TLS (RFC 3261 26.2.2: every hop of a sips request is TLS).
	ErrSipsNeedsTLS = errors.New("a sips: address needs an account with transport tls")
)

// ErrHoldFirst: a new call was not placed or answered because a connected
// call could not be put on hold first (one conversation at a time).
var ErrHoldFirst = errors.New("the call in progress could not be put on hold")

// ErrBadNumber is a number, link or transfer target holding characters no
// phone number or SIP URI may hold (CR, LF, NUL, other controls, '<', '>',
// spaces inside a URI): nothing is sent (issue 12). server/api answers 400
// with this text.
var ErrBadNumber = errors.New("the number has characters a phone number cannot have")
