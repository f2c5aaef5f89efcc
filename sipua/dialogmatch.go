package sipua

import (
	"github.com/emiago/sipgo/sip"
)

// A request inside a dialog belongs to a call only when its Call-ID, its
// To tag (our local tag) and its From tag (the other side's remote tag) all
// match the dialog (RFC 3261 12.2.2). With Call-ID and our tag alone, anyone
// who saw or guessed one message could end the call (BYE), move its media
// (re-INVITE) or have the phone call them (REFER). No match: 481.

// setRemoteTag records the other side's tag once the dialog has it: at once
// for a call we receive (the From tag of the INVITE), on the 2xx for a call we
// place (its To tag). Until then no request matches the dialog.
func (c *call) setRemoteTag(tag string) {
	c.p.mu.Lock()
	c.rtag, c.rtagSet = tag, true
	c.p.mu.Unlock()
}

// callForRequest finds the call of an in-dialog request by Call-ID, our tag
// (To) and theirs (From).
func (p *Phone) callForRequest(req *sip.Request) (*call, bool) {
	cid, to, from := req.CallID(), req.To(), req.From()
	if cid == nil || to == nil || from == nil {
		return nil, false
	}
	local, _ := to.Params.Get("tag")
	remote, _ := from.Params.Get("tag")
	return p.callByDialog(cid.Value(), local, remote)
}

// callByDialog finds the call with exactly this dialog id.
func (p *Phone) callByDialog(callID, local, remote string) (*call, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c, ok := p.dialogs[dialogKey(callID, local)]
	if !ok || !c.rtagSet || c.rtag != remote {
		return nil, false
	}
	return c, true
}

// callByTags finds the call whose dialog a Replaces header names: its
// to-tag is our local tag and its from-tag the other side's (RFC 3891 3);
// all three must match.
func (p *Phone) callByTags(r replaces) *call {
	c, _ := p.callByDialog(r.callID, r.toTag, r.fromTag)
	return c
}
