package sipua

import (
	"strings"
	"sync"

	"github.com/emiago/sipgo/sip"
)

// onNotify takes a NOTIFY of this subscription's dialog. It is answered
// here; out-of-order NOTIFYs (a lower CSeq than one already taken, RFC 3261
// 12.2.2) are answered and ignored. The check and the body are one step
// (notifying): the state left is that of the NOTIFY with the highest CSeq.
func (s *subscription) onNotify(req *sip.Request, tx sip.ServerTransaction) {
	s.notifying.Lock()
	defer s.notifying.Unlock()
	fromTag := ""
	if f := req.From(); f != nil {
		fromTag, _ = f.Params.Get("tag")
	}
	var seq uint32
	if c := req.CSeq(); c != nil {
		seq = c.SeqNo
	}
	s.mu.Lock()
	if s.remoteTag != "" && fromTag != s.remoteTag {
		s.mu.Unlock()
		_ = tx.Respond(sip.NewResponseFromRequest(req, 481, "Subscription Does Not Exist", nil))
		return
	}
	// A NOTIFY may come before the 2xx of SUBSCRIBE (RFC 6665 4.1.2.4): it
	// makes the dialog.
	s.remoteTag = fromTag
	if c := req.Contact(); c != nil {
		s.remote = *c.Address.Clone()
	}
	stale := seq != 0 && seq <= s.lastCSeq
	if !stale {
		s.lastCSeq = seq
	}
	s.mu.Unlock()
	// The body is taken before the 200 goes: whoever sees the answer sees
	// the new state (parsing is bounded by maxNotifyBody).
	defer func() { _ = tx.Respond(sip.NewResponseFromRequest(req, 200, "OK", nil)) }()
	if stale {
		return
	}
	state := ""
	if h := req.GetHeader("Subscription-State"); h != nil {
		state = strings.ToLower(strings.TrimSpace(strings.SplitN(h.Value(), ";", 2)[0]))
	}
	body := req.Body()
	ctype := ""
	if h := req.ContentType(); h != nil {
		ctype = strings.ToLower(strings.TrimSpace(strings.SplitN(h.Value(), ";", 2)[0]))
	}
	switch {
	case len(body) > maxNotifyBody:
		s.p.log.Warn("NOTIFY body too large, ignored", "event", s.event, "bytes", len(body))
	case len(body) > 0:
		s.notify(ctype, body)
	}
	if state == "terminated" {
		// The notifier ended it (timeout, deactivated, rejected ...):
		// subscribe again in a new dialog, after the usual wait.
		s.notify("", nil)
		s.mu.Lock()
		s.active = false
		s.mu.Unlock()
		s.forget()
		select {
		case s.kick <- false:
		default:
		}
	}
}

// subTable finds a subscription by the dialog of a NOTIFY: Call-ID and our
// tag (the NOTIFY's To tag); the remote tag is checked by the subscription.
type subTable struct {
	mu sync.Mutex
	m  map[string]*subscription
}

func (t *subTable) add(s *subscription) {
	s.mu.Lock()
	k := dialogKey(s.callID, s.localTag)
	s.mu.Unlock()
	t.mu.Lock()
	if t.m == nil {
		t.m = map[string]*subscription{}
	}
	t.m[k] = s
	t.mu.Unlock()
}

func (t *subTable) forget(s *subscription) {
	s.mu.Lock()
	k := dialogKey(s.callID, s.localTag)
	s.mu.Unlock()
	t.mu.Lock()
	if t.m[k] == s {
		delete(t.m, k)
	}
	t.mu.Unlock()
}

func (t *subTable) find(req *sip.Request) (*subscription, bool) {
	cid, to := req.CallID(), req.To()
	if cid == nil || to == nil {
		return nil, false
	}
	tag, _ := to.Params.Get("tag")
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.m[dialogKey(cid.Value(), tag)]
	return s, ok
}

// onNotify routes a NOTIFY: to a subscription of ours by its dialog, else
// to the call it belongs to (REFER progress), else 481.
func (p *Phone) onNotify(req *sip.Request, tx sip.ServerTransaction) {
	if s, ok := p.subs.find(req); ok {
		s.onNotify(req, tx)
		return
	}
	p.inDialog(func(c *call, req *sip.Request, tx sip.ServerTransaction) { c.onNotify(req, tx) })(req, tx)
}
