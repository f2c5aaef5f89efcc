package sipua

import (
	"context"

	"github.com/emiago/sipgo/sip"

	"github.com/softphone/softphone/audio"
)

const allowMethods = "INVITE, ACK, CANCEL, BYE, OPTIONS, INFO, REFER, NOTIFY"

// mediaDir is an SDP direction.
type mediaDir = audio.Direction

// Direction shorthands for SDP work.
const (
	dirSendRecv = audio.SendRecv
	dirSendOnly = audio.SendOnly
	dirRecvOnly = audio.RecvOnly
	dirInactive = audio.Inactive
)

// handle routes requests from the network to calls.
func (p *Phone) handle(st *stack) {
	st.srv.OnInvite(p.onInvite)
	st.srv.OnAck(p.onAck)
	st.srv.OnBye(p.onBye)
	st.srv.OnInfo(p.inDialog(func(c *call, req *sip.Request, tx sip.ServerTransaction) { c.onInfo(req, tx) }))
	st.srv.OnRefer(p.inDialog(func(c *call, req *sip.Request, tx sip.ServerTransaction) { c.onRefer(req, tx) }))
	st.srv.OnNotify(p.onNotify) // subscriptions (subscribe.go), else the call's REFER progress
	st.srv.OnOptions(p.onOptions(st))
	st.srv.OnNoRoute(p.onNoRoute(st))
	st.srv.OnCancel(func(req *sip.Request, tx sip.ServerTransaction) {
		// A CANCEL that matched an INVITE was handled by the transaction layer.
		noDialog(req, tx)
	})
}

// noDialog answers 481 to a request that matches no dialog of ours, and
// statelessly (RFC 3261 8.2.7), as refuse answers strangers: anyone can
// send such requests (forged BYEs, scans), and each answered by a
// transaction held about 4 KiB for 32 s (Timer J; H for INVITE) while
// resending its answer over UDP toward the address the request named.
func noDialog(req *sip.Request, tx sip.ServerTransaction) {
	_ = tx.Respond(sip.NewResponseFromRequest(req, 481, "Call/Transaction Does Not Exist", nil))
	tx.Terminate()
}

// inDialog wraps a handler of a request inside a call: 481 when no call
// has the dialog, else fn runs on the call's goroutine.
func (p *Phone) inDialog(fn func(*call, *sip.Request, sip.ServerTransaction)) func(*sip.Request, sip.ServerTransaction) {
	return func(req *sip.Request, tx sip.ServerTransaction) {
		c, ok := p.callForRequest(req)
		if ok && !c.mayWait(req, tx) {
			return
		}
		if ok {
			err := c.do(context.Background(), func() error { fn(c, req, tx); return nil })
			c.waiting.Add(-1)
			if err == nil {
				return
			}
		}
		noDialog(req, tx)
	}
}

// mayWait counts a request of the far end that is to wait for the call's
// goroutine, which a request of ours can hold for up to 32 s (a hold the
// far end does not answer). Beyond maxWaitingRequests it is answered 500
// with Retry-After (RFC 3261 21.5.1, as 14.2 answers an INVITE that
// overlaps another), statelessly as noDialog, and false: a far end's
// flood meanwhile held a goroutine and a transaction per request without
// bound. The caller undoes the count once the request is taken.
func (c *call) mayWait(req *sip.Request, tx sip.ServerTransaction) bool {
	if c.waiting.Add(1) <= maxWaitingRequests {
		return true
	}
	c.waiting.Add(-1)
	res := sip.NewResponseFromRequest(req, 500, "Server Internal Error", nil)
	res.AppendHeader(sip.NewHeader("Retry-After", "1"))
	_ = tx.Respond(res)
	tx.Terminate()
	return false
}

func (p *Phone) onAck(req *sip.Request, tx sip.ServerTransaction) {
	c, ok := p.callForRequest(req)
	if !ok {
		p.log.Debug("ACK outside any call", "call-id", req.CallID().Value(), "to", req.To().Value(), "keys", p.dialogKeys(), "me", p.stack.udpPort, "src", req.Source())
		return
	}
	c.reinviteAcked(req)
	// offerIn200: this ACK confirms our 200 to an INVITE without SDP, whose
	// offer we made; the answer must be in it (RFC 3261 13.2.1).
	offerIn200 := false
	if c.in != nil {
		if err := c.in.ReadAck(req, tx); err != nil {
			p.log.Debug("ACK", "call", c.id, "error", err)
		}
		if c.acked != nil {
			c.ackOnce.Do(func() {
				close(c.acked)
				offerIn200 = len(c.in.InviteRequest.Body()) == 0
			})
		}
	}
	if len(req.Body()) > 0 || offerIn200 {
		// Answer to the offer we put in a 200 (INVITE without SDP).
		body := req.Body()
		c.post(func() {
			if r, err := parseSDP(body); err == nil {
				if n, err := c.chooseMedia(r, false); err == nil {
					if n.keys, err = c.answeredSec(r); err != nil {
						c.endNotEncrypted(err)
						return
					}
					_ = c.applyMedia(n, answerDirection(r.dir, c.localHold))
					return
				}
			}
			if offerIn200 && c.c.State != StateEnded {
				// No answer we can use: hung up rather than a line
				// without audio (as a 200 without one, outgoing.go).
				c.p.log.Info("call failed: the ACK has no usable answer to our offer", "call", c.id, "sdp_bytes", len(body))
				c.bye()
				c.end(ReasonFailed, OutcomeAnswered)
			}
		})
	}
}

func (p *Phone) onBye(req *sip.Request, tx sip.ServerTransaction) {
	c, ok := p.callForRequest(req)
	if ok && c.doUrgent(context.Background(), func() error { c.onBye(req, tx); return nil }) == nil {
		return
	}
	noDialog(req, tx)
}

func (c *call) onBye(req *sip.Request, tx sip.ServerTransaction) {
	if c.c.State == StateRingingIn {
		// The caller left a call still ringing here by BYE instead of
		// CANCEL: 200 to the BYE, then 487 to the INVITE (RFC 3261
		// 15.1.2), which closes final. Without that final answer the
		// INVITE's handler waited for ever and kept its ringing place.
		_ = tx.Respond(sip.NewResponseFromRequest(req, 200, "OK", nil))
		sess := c.in
		go func() {
			_ = sess.Respond(487, "Request Terminated", nil)
			c.closeFinal()
		}()
		c.end(ReasonCancelled, OutcomeMissed)
		return
	}
	var err error
	if c.out != nil {
		err = c.out.ReadBye(req, tx)
	} else if c.in != nil {
		err = c.in.ReadBye(req, tx)
	}
	if err != nil {
		_ = tx.Respond(sip.NewResponseFromRequest(req, 200, "OK", nil))
	}
	c.end(c.remoteEndReason(), OutcomeAnswered)
}

// onInfo takes DTMF sent as SIP INFO (application/dtmf-relay or
// application/dtmf).
func (c *call) onInfo(req *sip.Request, tx sip.ServerTransaction) {
	if !c.inOrder(req, tx) {
		return
	}
	ctype := ""
	if h := req.ContentType(); h != nil {
		ctype = h.Value()
	}
	d, ok := parseDTMFInfo(ctype, req.Body())
	if !ok {
		_ = tx.Respond(sip.NewResponseFromRequest(req, 415, "Unsupported Media Type", nil))
		return
	}
	_ = tx.Respond(sip.NewResponseFromRequest(req, 200, "OK", nil))
	c.dtmfIn(d)
}

// inOrder checks the CSeq of a request inside the call's dialog: one
// lower than the last taken is out of order (a late duplicate) and gets
// 500 (RFC 3261 12.2.2: MUST), so it neither repeats a digit nor a
// transfer.
func (c *call) inOrder(req *sip.Request, tx sip.ServerTransaction) bool {
	if !c.afterAck() {
		noDialog(req, tx) // hung up meanwhile; its CSeq must not pass the ACK's
		return false
	}
	if err := c.dlg.ReadRequest(req, tx); err != nil {
		_ = tx.Respond(sip.NewResponseFromRequest(req, 500, "Server Internal Error", nil))
		return false
	}
	return true
}

// afterAck waits, in a call answered here, until the ACK of our 200 has
// been read (or the 200's retransmissions ended), before a request of the
// caller's is taken in the dialog. Its CSeq moves the dialog's remote CSeq
// on, and sipgo reads an ACK whose CSeq is not the current one as no ACK:
// a caller's INFO or re-INVITE handled before its ACK (requests are
// handled side by side; Asterisk re-INVITEs for direct media at once)
// left the 200 unconfirmed, and the call ended as failed 32 s later.
// onAck needs neither this goroutine nor the call's. False when the call
// ended meanwhile (a hang-up, taken while it waits).
func (c *call) afterAck() bool {
	if c.in == nil || c.acked == nil || !c.isConnected() {
		return true // not answered here: ringing requests do not wait
	}
	c.waitingForAck.Store(true)
	defer c.waitingForAck.Store(false)
	for {
		select {
		case <-c.acked:
			return true
		case <-c.final:
			return true
		case op := <-c.urgent:
			// A hang-up (or the phone's stop) does not wait for the ACK.
			if c.runUrgent(op) {
				return false
			}
		}
	}
}

// dtmfQueue bounds the digits waiting for a call's goroutine. A person
// keys a few digits a second; a peer sending far more is flooding.
const dtmfQueue = 64

// onDTMF is the media session's callback for RFC 4733 digits. It never
// blocks the media reader: digits go, in order, to a bounded queue the
// call's goroutine drains (one goroutine per digit published them in any
// order and let a flood of events pile up goroutines).
func (c *call) onDTMF(d byte) {
	select {
	case c.dtmfq <- d:
	default:
		if c.dtmfDropped.Add(1) == 1 {
			c.p.log.Warn("DTMF queue full: dropping the far end's digits", "call", c.id, "queue", dtmfQueue)
		}
	}
}

func (c *call) dtmfIn(d byte) {
	if c.c.State == StateEnded {
		return
	}
	s := c.c
	c.p.bus.Publish(Event{Kind: EventDTMF, Call: s, Digit: string(d)})
}

func (p *Phone) dialogKeys() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for k := range p.dialogs {
		out = append(out, k)
	}
	return out
}
