package sipua

import (
	"slices"
	"strings"

	"github.com/emiago/sipgo/sip"
)

// knownMethods are the SIP methods defined by RFC 3261 and its extensions
// (PRACK 3262, SUBSCRIBE/NOTIFY 6665, UPDATE 3311, MESSAGE 3428, REFER 3515,
// PUBLISH 3903, INFO 6086). A request for one of them that the phone does
// not take is answered 405 with Allow (RFC 3261 8.2.1); any other method is
// unknown to us and answered 501 (RFC 3261 21.5.2).
var knownMethods = []string{"INVITE", "ACK", "BYE", "CANCEL", "OPTIONS", "REGISTER", "PRACK",
	"SUBSCRIBE", "NOTIFY", "PUBLISH", "INFO", "REFER", "MESSAGE", "UPDATE"}

// allowHeader lists the methods that have a handler on st's server, so a
// handler added later (SUBSCRIBE, PUBLISH, ...) shows up without another
// list to keep in step.
func (st *stack) allowHeader() string {
	reg := st.srv.RegisteredMethods()
	var out []string
	for _, m := range knownMethods {
		if slices.Contains(reg, m) {
			out = append(out, m)
		}
	}
	for _, m := range reg {
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return strings.Join(out, ", ")
}

// acceptHeader is the bodies the phone reads (OPTIONS, RFC 3261 11.2).
const acceptHeader = "application/sdp, application/dtmf-relay, message/sipfrag"

// onNoRoute answers a method without a handler: 405 with Allow for a
// method we know but do not take, 501 for one we do not know. An ACK has
// no answer (RFC 3261 17.2.1).
func (p *Phone) onNoRoute(st *stack) func(*sip.Request, sip.ServerTransaction) {
	return func(req *sip.Request, tx sip.ServerTransaction) {
		if req.Method == sip.ACK || tx == nil {
			return
		}
		var res *sip.Response
		if slices.Contains(knownMethods, req.Method.String()) {
			res = sip.NewResponseFromRequest(req, 405, "Method Not Allowed", nil)
		} else {
			res = sip.NewResponseFromRequest(req, 501, "Not Implemented", nil)
		}
		res.AppendHeader(sip.NewHeader("Allow", st.allowHeader()))
		_ = tx.Respond(res)
		tx.Terminate() // statelessly, as noDialog and for the same reason
	}
}

// onOptions answers OPTIONS with what the phone takes (RFC 3261 11.2).
// The status is the one an INVITE would get (11.2: MUST): 403 to a host
// that may not call the phone (sip.accept_calls_from), so a scanner learns
// no more of it than of an INVITE; inside a call's dialog it is 200.
func (p *Phone) onOptions(st *stack) func(*sip.Request, sip.ServerTransaction) {
	return func(req *sip.Request, tx sip.ServerTransaction) {
		if _, inCall := p.callForRequest(req); !inCall && !p.mayCall(req) {
			p.refuse(req, tx)
			return
		}
		res := sip.NewResponseFromRequest(req, 200, "OK", nil)
		res.AppendHeader(sip.NewHeader("Allow", st.allowHeader()))
		res.AppendHeader(sip.NewHeader("Accept", acceptHeader))
		_ = tx.Respond(res)
	}
}
