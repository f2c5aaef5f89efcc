package api

import (
	"errors"
	"fmt"
)

// The error messages of rest-api.md "Errors" (exact), and ours for the cases
// the spec leaves open (README, API section).
const (
	msgNoEndpoint     = "no such endpoint"
	msgNoContact      = "no contact with that id"
	msgNoCall         = "no call with that id"
	msgNoNumber       = "a call needs a number"
	msgNoDigits       = "no digits to send"
	msgNoTarget       = "a transfer needs a target"
	msgAccountGone    = "the account this call is on is no longer set up"
	msgNoRecording    = "no recording with that id"
	msgNoAudio        = "the audio of that recording is missing"
	msgNoHistory      = "no history entry with that id"
	msgNoAccount      = "no account with that id"
	msgNoTaxonomy     = "no taxonomy entry with that code"
	msgMalformed      = "malformed JSON body"
	msgBadRequest     = "malformed request"
	msgTooLarge       = "request body larger than 64 KiB"
	msgNotJSON        = "the body must be JSON (Content-Type: application/json)"
	msgWrongMethod    = "method not allowed"
	msgWrongToken     = "wrong token"
	msgWrongHost      = "host not allowed"
	msgWrongOrigin    = "origin not allowed: approve it on the phone page"
	msgBadLimit       = "limit must be a whole number from 1 to 1000"
	msgBadBool        = "%s must be true or false"
	msgBadAccountID   = "account_id must be a UUID"
	msgNoPhone        = "no phone to place the call from: set up an account first"
	msgInternal       = "internal error"
	msgBadDigit       = "digits may hold only 0-9, *, #, A-D"
	msgCallState      = "not possible in the call's present state"
	msgTransferFailed = "the transfer was refused or failed"
	msgNotServing     = "the phone is not running"
	msgBadRange       = "the range asked for lies outside the audio"
	// A change of the settings (PATCH /settings, /accounts) that
	// settings.json's disk had no room for; the file is replaced
	// atomically, so the settings before stand.
	msgSettingsDiskFull = "the disk is full: nothing was saved, the settings before stand; free some space and try again"
	// A change the database refused for its full disk (contacts, history,
	// taxonomy, a recording's row).
	msgDiskFull = "the disk is full: the change was not saved; free some space and try again"
)

// ErrNoQuestion: an answer for an origin nobody is asking about (answered in
// another tab, or expired).
var ErrNoQuestion = errors.New("no question about that origin")

// httpError is an error that carries its status and the message shown in
// {"error": "..."}.
type httpError struct {
	status int
	msg    string
}

func (e *httpError) Error() string { return fmt.Sprintf("%d %s", e.status, e.msg) }

func fail(status int, msg string) error { return &httpError{status: status, msg: msg} }

func failf(status int, format string, args ...any) error {
	return &httpError{status: status, msg: fmt.Sprintf(format, args...)}
}

// asHTTP gives the status and message of err; anything unknown is a 500
// whose text is not shown (it may name files or hosts).
func asHTTP(err error) (int, string) {
	var he *httpError
	if errors.As(err, &he) {
		return he.status, he.msg
	}
	return 500, msgInternal
}
