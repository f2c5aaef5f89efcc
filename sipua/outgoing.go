package sipua

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/emiago/sipgo"
	"github.com/emiago/sipgo/sip"
	"github.com/google/uuid"
)

// headerSeance carries the conversation id between phones (webhooks.md).
const headerSeance = "X-Seance-Id"

// Dial places a call to number on the account accountID (the selected one
// when empty). It returns once the INVITE is sent, in state dialing. A
// connected call is put on hold first (onecall.go).
func (p *Phone) Dial(ctx context.Context, number, accountID string) (Call, error) {
	if strings.TrimSpace(number) == "" {
		return Call{}, ErrNoNumber
	}
	if err := p.holdOthers(ctx, ""); err != nil {
		return Call{}, fmt.Errorf("dial: %w", err)
	}
	return p.dial(ctx, dialOpts{number: number, accountID: accountID})
}

type dialOpts struct {
	number    string
	accountID string
	seance    string       // keep this conversation id (transfer, consultation)
	headers   []sip.Header // extra headers (Replaces, Referred-By)
	onSettled func(status int, reason string)
}

func (p *Phone) dial(ctx context.Context, o dialOpts) (Call, error) {
	if strings.TrimSpace(o.number) == "" {
		return Call{}, ErrNoNumber
	}
	l, err := p.lineFor(o.accountID)
	if err != nil {
		return Call{}, fmt.Errorf("dial: %w", err)
	}
	target, err := parseTarget(o.number, l.acc)
	if err == nil {
		err = checkSips(target, l.acc)
	}
	if err != nil {
		return Call{}, fmt.Errorf("dial: %w", err)
	}
	// Headers in the target URI (Refer-To "?Replaces=...") become headers.
	var uriHdrs []sip.Header
	if target.Headers != nil {
		for k, v := range target.Headers.Items() {
			if strings.EqualFold(k, headerSeance) {
				if o.seance == "" {
					if _, err := uuid.Parse(unescape(v)); err == nil {
						o.seance = unescape(v)
					}
				}
				continue
			}
			h, err := uriHeader(k, unescape(v))
			if err != nil {
				return Call{}, fmt.Errorf("dial: %w", err)
			}
			if h != nil {
				uriHdrs = append(uriHdrs, h)
			}
		}
		target.Headers = nil
	}
	c := p.newCall(l, DirOut, o.seance)
	c.onSettled = o.onSettled
	c.c.Dialed = o.number
	c.c.Number, _, c.c.URI = partyOf("", target)
	ms, err := p.media.NewSession(c.id, c.c.SeanceID, c.onDTMF)
	if err != nil {
		return Call{}, fmt.Errorf("dial: media: %w", err)
	}
	c.media = ms
	c.learnPublic() // STUN: our RTP address outside the NAT (nat_media.go)

	req := sip.NewRequest(sip.INVITE, target)
	from := &sip.FromHeader{DisplayName: l.acc.Name, Address: aor(l.acc), Params: sip.NewParams()}
	from.Params.Add("tag", sip.GenerateTagN(16))
	req.AppendHeader(from)
	req.AppendHeader(&sip.ToHeader{Address: sip.Uri{Scheme: target.Scheme, User: target.User, Host: target.Host, Port: target.Port}})
	ct := l.dialogContact()
	req.AppendHeader(&ct)
	req.AppendHeader(sip.NewHeader(headerSeance, c.c.SeanceID))
	req.AppendHeader(sip.NewHeader("Allow", allowMethods))
	req.AppendHeader(sip.NewHeader("Content-Type", "application/sdp"))
	for _, h := range append(uriHdrs, o.headers...) {
		req.AppendHeader(h)
	}
	req.SetBody(c.localSDP(p.media.Codecs(), dirSendRecv))
	l.prepare(req)
	callID := uuid.NewString()
	cid := sip.CallIDHeader(callID)
	req.AppendHeader(&cid)

	c.dkey = dialogKey(callID, from.Params.GetOr("tag", ""))
	c.ringID, c.ringSeen = callID, &atomic.Bool{}
	ringSeen.Store(callID, c.ringSeen)
	if !c.start() {
		ringSeen.Delete(callID)
		_ = ms.Close()
		return Call{}, fmt.Errorf("dial: %w", ErrNotServing)
	}
	err = c.do(ctx, func() error {
		c.begin(StateDialing)
		sess, err, hungUp := c.sendInvite(l, req)
		if hungUp {
			return nil // the hang-up ended the call; Dial gives it, ended
		}
		if err != nil {
			c.end(ReasonFailed, OutcomeFailed)
			return fmt.Errorf("dial: send INVITE: %w", err)
		}
		c.out, c.dlg = sess, sess
		c.answerAt = time.AfterFunc(p.noAnswer, func() {
			_ = c.do(context.Background(), func() error {
				if c.c.State == StateDialing || c.c.State == StateRingingOut {
					c.end(ReasonNoAnswer, OutcomeMissed) // sends the CANCEL (cancel.go)
				}
				return nil
			})
		})
		wctx, stop := context.WithCancelCause(context.Background())
		waited := make(chan struct{})
		k := &inviteCanceller{c: c, client: l.client, stopWait: stop, waited: waited}
		c.stopWait = k.hangup
		p.inviting.add()
		go func() {
			defer p.inviting.done()
			defer close(waited)
			defer stop(nil)
			c.waitAnswer(wctx, sess, k)
		}()
		return nil
	})
	if err != nil {
		return c.snapshot(), err
	}
	return c.snapshot(), nil
}

// waitAnswer follows the INVITE transaction: 180/183 ring, 2xx answers,
// anything else ends the call. Digest auth on 401/407 is done by sipgo.
func (c *call) waitAnswer(ctx context.Context, sess *sipgo.DialogClientSession, k *inviteCanceller) {
	defer unwatchInvite(sess.InviteRequest) // no more transactions for it
	bg := context.Background()
	err := sess.WaitAnswer(ctx, sipgo.AnswerOptions{
		Username: c.line.authUser(), Password: c.line.password(),
		OnResponse: func(r *sip.Response) error {
			if r.IsSuccess() {
				// Before WaitAnswer returns: a BYE right after the 200 must
				// find the dialog.
				c.setRemoteTag(r.To().Params.GetOr("tag", ""))
			}
			if r.StatusCode == 180 || r.StatusCode == 183 {
				_ = c.do(bg, func() error { c.onRinging(r); return nil })
			}
			return k.onResponse(sess.InviteRequest, r)
		},
	})
	if err == nil && (sess.InviteResponse == nil || !sess.InviteResponse.IsSuccess()) {
		// sipgo's cancel path gives the transaction's error, which can be
		// nil when the user agent is stopping (see doRequest): not an answer.
		err = errNoAnswer
	}
	c.p.log.Debug("INVITE settled", "call", c.id, "error", err)
	status, reason := 0, ""
	if err == nil {
		status, reason = 200, "OK"
		aerr := c.do(bg, func() error { return c.onAnswered(sess) })
		if errors.Is(aerr, errAnswerMedia) {
			// Answered, then hung up here: a transfer to it failed.
			status, reason = 488, "Not Acceptable Here"
		}
		if aerr == ErrNoCall {
			// Hung up while the 200 was on its way: confirm and leave.
			_ = sess.Ack(bg)
			bctx, cancel := context.WithTimeout(bg, inDialogTimeout)
			target := *sess.InviteRequest.Recipient.Clone()
			if ct := sess.InviteResponse.Contact(); ct != nil {
				target = *ct.Address.Clone()
			}
			_ = sendBye(bctx, sess, nil, target, c.line)
			cancel()
		}
	} else {
		var de *sipgo.ErrDialogResponse
		if errors.As(err, &de) {
			status, reason = de.Res.StatusCode, de.Res.Reason
		}
		_ = c.do(bg, func() error { c.onRefused(status, err); return nil })
	}
	if c.onSettled != nil {
		if status == 0 {
			status, reason = 408, "Request Timeout"
		}
		c.onSettled(status, reason)
	}
}

func (c *call) onRinging(r *sip.Response) {
	if c.c.State != StateDialing && c.c.State != StateRingingOut {
		return
	}
	// Early media (183 with SDP) is played at once, and moved when a later
	// 18x names another address or codec (another fork, an announcement).
	if len(r.Body()) > 0 {
		c.noteSignalPeer(r)
		if rs, err := parseSDP(r.Body()); err == nil {
			n, err := c.chooseMedia(rs, false)
			if err == nil {
				n.keys, err = c.answeredSec(rs)
			}
			if err == nil && !sameMedia(n, c.neg) {
				if err := c.applyMedia(n, dirSendRecv); err != nil {
					c.p.log.Warn("early media", "call", c.id, "error", err)
				}
			}
		}
	}
	c.setState(StateRingingOut)
}

func sameMedia(a, b negotiated) bool {
	return a.remote != nil && b.remote != nil && a.remote.String() == b.remote.String() &&
		a.codec == b.codec && a.dtmfPT == b.dtmfPT
}

func (c *call) onAnswered(sess *sipgo.DialogClientSession) error {
	res := sess.InviteResponse
	if err := sess.Ack(context.Background()); err != nil {
		c.p.log.Warn("ACK", "call", c.id, "error", err)
	}
	if c.c.State == StateEnded {
		return ErrNoCall
	}
	if c.c.State == StateDialing && c.ringSeen != nil && c.ringSeen.Load() {
		// A 180/183 came before this 200 but sipgo handed it up after (and
		// dropped it): the call still rang.
		c.setState(StateRingingOut)
	}
	usable := false
	if rs, err := parseSDP(res.Body()); err == nil {
		c.noteSignalPeer(res)
		if n, err := c.chooseMedia(rs, false); err == nil {
			if n.keys, err = c.answeredSec(rs); err != nil {
				// Required encryption, clear answer: confirmed (ACK above)
				// and hung up, never a word in clear.
				c.p.log.Info("call refused: media not encrypted", "call", c.id, "error", err)
				c.bye()
				c.end(ReasonNotEncrypted, OutcomeFailed)
				return fmt.Errorf("%w: %w", errAnswerMedia, err)
			}
			_ = c.applyMedia(n, dirSendRecv)
			c.remoteHold = rs.dir == dirSendOnly || rs.dir == dirInactive
			usable = true
		}
	}
	if !usable && (len(res.Body()) > 0 || c.neg.remote == nil) {
		// No answer we can use to our offer (none in a 183 before either):
		// confirmed (ACK above) and hung up, rather than a line without
		// audio (RFC 3261 13.2.1, RFC 3264 6).
		c.p.log.Info("call failed: the answer has no usable media", "call", c.id, "sdp_bytes", len(res.Body()))
		c.bye()
		c.end(ReasonFailed, OutcomeFailed)
		return errAnswerMedia
	}
	// An answer without SDP keeps early media's: a handshake that failed
	// then runs again now (a no-op otherwise; applyMedia did it above for
	// an answer with SDP).
	if err := c.startDTLS(); err != nil {
		c.endNotEncrypted(err)
		return fmt.Errorf("%w: %w", errAnswerMedia, err)
	}
	if ct := res.Contact(); ct != nil {
		_, _, c.c.URI = partyOf("", ct.Address)
	}
	c.c.Name = c.p.contactName(c.c.Number)
	c.stopWait = nil
	if c.answerAt != nil {
		c.answerAt.Stop()
	}
	go c.watchDialog(sess.Context())
	c.connected()
	return nil
}

// errAnswerMedia: the 2xx to our INVITE had no media we can use; the call
// was confirmed and hung up.
var errAnswerMedia = errors.New("the answer has no usable media")

// onRefused ends a call the other side (or the network) did not take.
func (c *call) onRefused(status int, err error) {
	if c.c.State != StateEnded {
		c.c.SIPStatus = status // before end: the call-ended event carries it
	}
	switch {
	case c.c.State == StateEnded:
	case status == 486 || status == 600:
		c.end(ReasonBusy, OutcomeDeclined)
	case status == 603:
		c.end(ReasonDeclined, OutcomeDeclined)
	case status == 408 || status == 480:
		c.end(ReasonNoAnswer, OutcomeMissed)
	case status == 487:
		c.end(ReasonCancelled, OutcomeMissed)
	default:
		c.p.log.Info("call failed", "call", c.id, "status", status, "error", err)
		c.end(ReasonFailed, OutcomeFailed)
	}
}

// watchDialog ends the call if sipgo ends the dialog (ACK retransmission
// failing and the like) without a BYE we saw.
func (c *call) watchDialog(ctx context.Context) {
	select {
	case <-ctx.Done():
		_ = c.do(context.Background(), func() error {
			if c.c.State != StateEnded && c.c.State != StateRingingIn {
				c.end(c.remoteEndReason(), OutcomeAnswered)
			}
			return nil
		})
	case <-c.done:
	}
}

func (c *call) remoteEndReason() string {
	if c.endHint != "" {
		return c.endHint
	}
	return ReasonRemoteHangup
}

// sendInvite sends the INVITE. That may first open a connection (TCP,
// TLS), which a server that swallows it (down behind a firewall, a VPN
// gone) holds up to sipgo's dial timeout, 1 min, and a REGISTER's attempt
// to the same server is joined rather than started anew, so no context
// shortens it. The call's urgent ops (a hang-up, the phone's stop) are
// taken meanwhile: they waited that minute with the call on "dialing".
// hungUp: one ended the call; an INVITE that still goes out is then
// cancelled as soon as it may be (cancelLate).
func (c *call) sendInvite(l *line, req *sip.Request) (sess *sipgo.DialogClientSession, err error, hungUp bool) {
	type sent struct {
		sess *sipgo.DialogClientSession
		err  error
	}
	done := make(chan sent, 1)
	c.p.inviting.add() // the user agent stays open for it (inviting.go)
	c.watchInvite(req) // another far end's 2xx (fork.go); until waitAnswer ends
	go func() {
		s, err := l.dialogUA().WriteInvite(context.Background(), req)
		if err != nil {
			unwatchInvite(req)
		}
		done <- sent{s, err}
	}()
	for {
		select {
		case r := <-done:
			c.p.inviting.done()
			return r.sess, r.err, false
		case op := <-c.urgent:
			if c.runUrgent(op) {
				go func() {
					defer c.p.inviting.done()
					if r := <-done; r.err == nil {
						c.cancelLate(l, r.sess)
					}
				}()
				return nil, nil, true
			}
		}
	}
}

// cancelLate cancels an INVITE that went out after its call was hung up
// (sendInvite): the CANCEL follows its first provisional answer, a 200
// that crosses it gets ACK and BYE (waitAnswer).
func (c *call) cancelLate(l *line, sess *sipgo.DialogClientSession) {
	wctx, stop := context.WithCancelCause(context.Background())
	waited := make(chan struct{})
	k := &inviteCanceller{c: c, client: l.client, stopWait: stop, waited: waited}
	k.hangup()
	c.p.inviting.add()
	go func() {
		defer c.p.inviting.done()
		defer close(waited)
		defer stop(nil)
		c.waitAnswer(wctx, sess, k)
	}()
}
