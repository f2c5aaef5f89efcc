package sipua

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/emiago/sipgo"
	"github.com/emiago/sipgo/sip"
)

// errHungUp ends the wait for an answer when the caller hung up and the
// INVITE was then challenged (401/407): a call hung up is not retried with
// credentials. Other refusals keep their status.
var errHungUp = errors.New("hung up while dialling")

// inviteCanceller sends the CANCEL of an outgoing INVITE (RFC 3261 9.1).
// sipgo v1.7.2 would send it from WaitAnswer when its context ends, but it
// builds the CANCEL from the Request-URI without the destination we set:
// with a server on another port than the Request-URI names (Domain plus
// Port, no outbound proxy) and no Record-Route, the CANCEL went to the
// Request-URI's host at 5060 and the far end rang on. So the phone sends it
// itself, to where the INVITE went, and leaves sipgo's wait running to take
// the 487 (whose ACK sipgo's transaction sends).
type inviteCanceller struct {
	c      *call
	client *sipgo.Client
	// stopWait ends sipgo's wait without its own CANCEL, when no final
	// answer follows ours in 64*T1 (an RFC 2543 far end sends no 487).
	stopWait context.CancelCauseFunc
	waited   <-chan struct{} // closed once the wait has returned

	mu     sync.Mutex
	req    *sip.Request // CANCEL of the transaction now ringing; nil before its first provisional
	wanted bool         // the call was hung up
	sent   bool
}

// hangup asks for the CANCEL: now if the INVITE rings, otherwise with its
// first provisional answer (RFC 3261 9.1: not before one).
func (k *inviteCanceller) hangup() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.wanted = true
	k.sendLocked()
}

// onResponse sees each answer to the INVITE, in WaitAnswer's goroutine: the
// one that rewrites the INVITE for a digest retry, so the CANCEL is built
// from the INVITE here and nowhere else.
func (k *inviteCanceller) onResponse(inv *sip.Request, r *sip.Response) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	switch {
	case r.IsProvisional():
		if k.req == nil {
			k.req = cancelRequest(inv)
		}
		k.sendLocked()
	default:
		// This transaction is over: nothing to cancel after a 2xx (RFC
		// 3261 9.1; a hang-up then is a BYE), and a digest retry starts
		// another transaction.
		k.req = nil
		if k.wanted && (r.StatusCode == 401 || r.StatusCode == 407) {
			return errHungUp // not retried with credentials
		}
	}
	return nil
}

func (k *inviteCanceller) sendLocked() {
	if !k.wanted || k.sent || k.req == nil {
		return
	}
	k.sent = true
	req := k.req
	p := k.c.p
	p.inviting.add() // the stack's user agent stays open for it (inviting.go)
	go func() {
		defer p.inviting.done()
		ctx, cancel := context.WithTimeout(context.Background(), 64*sip.T1)
		res, err := doRequest(ctx, k.client, req)
		cancel()
		if err != nil {
			p.log.Debug("CANCEL", "call", k.c.id, "error", err)
		} else if res.StatusCode != 200 {
			// 481: the INVITE was answered or refused meanwhile; its
			// answer settles the call.
			p.log.Debug("CANCEL", "call", k.c.id, "status", res.StatusCode)
		}
		t := time.NewTimer(64 * sip.T1)
		defer t.Stop()
		select {
		case <-k.waited:
		case <-t.C:
			k.stopWait(sipgo.WaitAnswerForceCancelErr)
		}
	}()
}

// cancelRequest is the CANCEL of inv (RFC 3261 9.1): its Request-URI,
// top Via, Call-ID, From, To, CSeq number and Route, sent to the same
// destination over the same transport.
func cancelRequest(inv *sip.Request) *sip.Request {
	req := sip.NewRequest(sip.CANCEL, *inv.Recipient.Clone())
	req.SipVersion = inv.SipVersion
	req.AppendHeader(sip.HeaderClone(inv.Via()))
	sip.CopyHeaders("Route", inv, req)
	mf := sip.MaxForwardsHeader(70)
	req.AppendHeader(&mf)
	req.AppendHeader(sip.HeaderClone(inv.From()))
	req.AppendHeader(sip.HeaderClone(inv.To()))
	req.AppendHeader(sip.HeaderClone(inv.CallID()))
	req.AppendHeader(&sip.CSeqHeader{SeqNo: inv.CSeq().SeqNo, MethodName: sip.CANCEL})
	req.SetTransport(inv.Transport())
	req.SetDestination(inv.Destination())
	req.SetSource(inv.Source())
	req.Laddr = inv.Laddr
	return req
}
