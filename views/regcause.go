package views

import (
	"strconv"
	"strings"
)

// RegStateWords is a registration state with its cause for people:
// "registration failed: 401 Unauthorized: wrong password".
func RegStateWords(l L, state, cause string) string {
	w := l.T("reg." + state)
	if state == "" {
		w = l.T("reg.unregistered")
	}
	if c := CauseWords(l, cause); c != "" {
		w += ": " + c
	}
	return w
}

// CauseWords says why a PBX refused or what went wrong, keeping the PBX's
// own status line ("401 Unauthorized: wrong password"). cause is what sipua
// gives: a SIP status line, "timeout", or "network error: ...".
func CauseWords(l L, cause string) string {
	switch {
	case cause == "":
		return ""
	case cause == "timeout":
		return l.T("regcause.timeout")
	case strings.HasPrefix(cause, "network error: "):
		return l.T("regcause.network") + " (" + strings.TrimPrefix(cause, "network error: ") + ")"
	}
	code, _ := strconv.Atoi(strings.SplitN(cause, " ", 2)[0])
	var key string
	switch {
	case code == 401 || code == 407:
		key = "regcause.401" // RFC 3261 22: the credentials were not accepted
	case code == 403:
		key = "regcause.403"
	case code == 404:
		key = "regcause.404"
	case code == 408:
		key = "regcause.timeout"
	case code == 423:
		key = "regcause.423"
	case code == 503:
		key = "regcause.503"
	case code >= 500 && code < 600:
		key = "regcause.5xx"
	case code == 0:
		return cause // a state sipua says in words already (no listener for a transport)
	default:
		return cause
	}
	return cause + ": " + l.T(key)
}
