package sipua

import (
	"context"
	"sync"

	"github.com/emiago/sipgo"
	"github.com/emiago/sipgo/sip"
)

// A proxy may fork our INVITE and more than one far end may answer 2xx
// (RFC 3261 13.2.2.4, 19.3). The call goes on with the first; each other
// one MUST be ACKed, again for each retransmission of its 2xx, and ended
// with a BYE. sipgo passes those 2xx (another To tag on the INVITE's
// transaction, in its Accepted state, RFC 6026 7.2) only to the
// transaction's retransmission hooks, and its own hook answered them with
// the first dialog's ACK: the other far end resent its 2xx for 32 s, its
// person answering into silence, and then gave up on an unacknowledged
// call. sipgo gives a dialog's INVITE transaction to nobody, so the
// transaction requester (udp_size.go) hands it to the watcher of its
// request here.

// maxForks bounds the other far ends answered for one INVITE: a proxy
// making up To tags does not get a BYE transaction per 2xx.
const maxForks = 8

// inviteWatch maps an outgoing INVITE (*sip.Request) to the function that
// takes each transaction made for it (a digest retry makes another).
var inviteWatch sync.Map

// watchInvite has each transaction sent for inv hooked by the call's fork
// handling until unwatchInvite.
func (c *call) watchInvite(inv *sip.Request) {
	f := &forks{c: c, inv: inv, acks: map[string]*sip.Request{}}
	inviteWatch.Store(inv, func(tx sip.ClientTransaction) {
		tx.OnRetransmission(f.answer)
	})
}

func unwatchInvite(inv *sip.Request) { inviteWatch.Delete(inv) }

// sentInvite is called by the transaction requester for each INVITE
// transaction it made.
func sentInvite(req *sip.Request, tx sip.ClientTransaction) {
	if f, ok := inviteWatch.Load(req); ok {
		f.(func(sip.ClientTransaction))(tx)
	}
}

type forks struct {
	c    *call
	inv  *sip.Request
	mu   sync.Mutex
	acks map[string]*sip.Request // the other far ends' To tags and their ACKs
}

// answer takes a 2xx the INVITE's transaction passes on after its first:
// the first far end's again (sipgo's own hook ACKs it) or another's.
func (f *forks) answer(r *sip.Response) {
	if !r.IsSuccess() || r.To() == nil {
		return
	}
	tag, _ := r.To().Params.Get("tag")
	f.c.p.mu.Lock()
	ours, known := f.c.rtag, f.c.rtagSet
	f.c.p.mu.Unlock()
	if tag == "" || !known || tag == ours {
		return // not yet known: the other far end sends its 2xx again
	}
	client := f.c.line.client
	f.mu.Lock()
	ack, seen := f.acks[tag]
	if !seen {
		if len(f.acks) >= maxForks {
			f.mu.Unlock()
			return
		}
		ack = forkRequest(sip.ACK, f.inv, r, f.inv.CSeq().SeqNo)
		_ = sipgo.ClientRequestAddVia(client, ack) // one branch for every copy
		f.acks[tag] = ack
	}
	f.mu.Unlock()
	asIs := func(*sipgo.Client, *sip.Request) error { return nil }
	_ = client.WriteRequest(ack.Clone(), asIs)
	if seen {
		return
	}
	f.c.p.log.Info("another far end answered the forked call: acknowledged and ended", "call", f.c.id)
	bye := forkRequest(sip.BYE, f.inv, r, f.inv.CSeq().SeqNo+1)
	f.c.p.inviting.add() // the user agent stays open for it (inviting.go)
	go func() {
		defer f.c.p.inviting.done()
		ctx, cancel := context.WithTimeout(context.Background(), inDialogTimeout)
		defer cancel()
		_, _ = client.Do(ctx, bye)
	}()
}

// forkRequest is a request inside the dialog r (a 2xx to inv) made:
// Request-URI its Contact, the route set its Record-Route reversed (RFC
// 3261 12.1.2, 12.2.1.1), From and Call-ID the INVITE's, To r's.
func forkRequest(method sip.RequestMethod, inv *sip.Request, r *sip.Response, cseq uint32) *sip.Request {
	target := inv.Recipient
	if ct := r.Contact(); ct != nil {
		target = ct.Address
	}
	req := sip.NewRequest(method, *target.Clone())
	req.SipVersion = inv.SipVersion
	rr := r.GetHeaders("Record-Route")
	for i := len(rr) - 1; i >= 0; i-- {
		req.AppendHeader(sip.NewHeader("Route", rr[i].Value()))
	}
	if rt := req.Route(); rt != nil && !rt.Address.UriParams.Has("lr") {
		req.Recipient = *rt.Address.Clone() // a strict router (RFC 3261 12.2.1.1)
	}
	mf := sip.MaxForwardsHeader(70)
	req.AppendHeader(&mf)
	req.AppendHeader(sip.HeaderClone(inv.From()))
	req.AppendHeader(sip.HeaderClone(r.To()))
	req.AppendHeader(sip.HeaderClone(inv.CallID()))
	req.AppendHeader(&sip.CSeqHeader{SeqNo: cseq, MethodName: method})
	req.SetTransport(inv.Transport())
	req.Laddr = inv.Laddr
	return req
}
