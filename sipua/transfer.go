package sipua

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/emiago/sipgo/sip"

	"github.com/softphone/softphone/store"
)

// transferTimeout bounds how long Transfer waits for the final NOTIFY.
const transferTimeout = 60 * time.Second

// referWait is a REFER we sent, waiting for the final sipfrag NOTIFY.
type referWait struct {
	once sync.Once
	done chan error
	also *call // attended: the consultation call, ended with ours
}

func (r *referWait) finish(err error) {
	r.once.Do(func() { r.done <- err })
}

// Transfer hands a connected call to target (blind transfer, RFC 3515):
// REFER, then our leg ends with reason transferred when the NOTIFY says
// the target answered. The error says why it failed otherwise.
func (p *Phone) Transfer(ctx context.Context, id, target string) error {
	if strings.TrimSpace(target) == "" {
		return ErrNoTarget
	}
	return p.refer(ctx, id, func(c *call) (string, *call, error) {
		acc := c.acc
		if _, ok := p.lineByID(acc.ID); !ok {
			// rest-api.md: with the call's account removed, a target that
			// needs completing cannot be (ErrAccountGone, nothing sent); one
			// with a scheme or '@' is sent unchanged.
			acc = store.Account{}
		}
		u, err := transferTarget(target, acc)
		if err != nil {
			return "", nil, err
		}
		u.Headers = sip.NewParams()
		u.Headers.Add(headerSeance, c.c.SeanceID)
		return u.String(), nil, nil
	})
}

// AttendedTransfer connects the other sides of call id and of the
// consultation call consultID (REFER with Replaces, RFC 3891/5589); both of
// our legs end with reason transferred.
func (p *Phone) AttendedTransfer(ctx context.Context, id, consultID string) error {
	cc, err := p.get(consultID)
	if err != nil {
		return err
	}
	var target string
	err = cc.do(ctx, func() error {
		if !cc.isConnected() {
			return ErrCallState
		}
		callID, local, remote := cc.tags()
		u := cc.remoteAOR()
		if cc.out != nil && isBare(cc.c.Dialed) {
			// The consultation was dialled as a bare name: the transferee
			// needs the account's hop to reach it too.
			accountHop(&u, cc.acc)
		}
		r := replaces{callID: callID, toTag: remote, fromTag: local}
		target = u.String() + "?Replaces=" + escapeHeaderValue(r.String())
		return nil
	})
	if err != nil {
		return fmt.Errorf("attended transfer: consultation %s: %w", consultID, err)
	}
	return p.refer(ctx, id, func(c *call) (string, *call, error) {
		return target + "&" + headerSeance + "=" + c.c.SeanceID, cc, nil
	})
}

// Consult places a consultation call for call id: id is put on hold and the
// new call keeps its seance id (webhooks.md "One conversation").
func (p *Phone) Consult(ctx context.Context, id, number string) (Call, error) {
	c, err := p.get(id)
	if err != nil {
		return Call{}, err
	}
	var seance, acc string
	err = c.do(ctx, func() error {
		seance, acc = c.c.SeanceID, c.acc.ID
		if c.isConnected() && !c.localHold {
			return c.setHold(ctx, true)
		}
		return nil
	})
	if err != nil {
		return Call{}, fmt.Errorf("consult: %w", err)
	}
	return p.dial(ctx, dialOpts{number: number, accountID: acc, seance: seance})
}

// remoteAOR is the other side's address as dialled or as it called us.
func (c *call) remoteAOR() sip.Uri {
	if c.out != nil {
		u := c.out.InviteRequest.Recipient
		return sip.Uri{Scheme: u.Scheme, User: u.User, Host: u.Host, Port: u.Port}
	}
	u := c.in.InviteRequest.From().Address
	return sip.Uri{Scheme: u.Scheme, User: u.User, Host: u.Host, Port: u.Port}
}

func (p *Phone) refer(ctx context.Context, id string, referTo func(*call) (string, *call, error)) error {
	c, err := p.get(id)
	if err != nil {
		return err
	}
	var w *referWait
	err = c.do(ctx, func() error {
		if !c.isConnected() {
			return ErrCallState
		}
		if c.refer != nil {
			return fmt.Errorf("%w: a transfer is already running", ErrCallState)
		}
		to, also, err := referTo(c)
		if err != nil {
			return err
		}
		by := sip.Uri{Scheme: "sip", User: c.acc.Username, Host: aor(c.acc).Host}
		res, err := c.request(ctx, sip.REFER, nil, "",
			sip.NewHeader("Refer-To", "<"+to+">"), sip.NewHeader("Referred-By", "<"+by.String()+">"))
		if err != nil {
			return fmt.Errorf("%w: %w", ErrTransferFailed, err)
		}
		if !res.IsSuccess() {
			return fmt.Errorf("%w: REFER answered %d %s", ErrTransferFailed, res.StatusCode, res.Reason)
		}
		w = &referWait{done: make(chan error, 1), also: also}
		c.refer = w
		if also != nil {
			// The consultation ends when its far end is replaced.
			also.post(func() { also.endHint = ReasonTransferred })
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("transfer call %s: %w", id, err)
	}
	t := time.NewTimer(transferTimeout)
	defer t.Stop()
	select {
	case err = <-w.done:
	case <-t.C:
		err = fmt.Errorf("%w: no outcome from the other side", ErrTransferFailed)
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		_ = c.do(context.Background(), func() error {
			if c.refer == w {
				c.refer = nil
			}
			return nil
		})
		return fmt.Errorf("transfer call %s: %w", id, err)
	}
	return nil
}

// onNotify takes the progress of our REFER (message/sipfrag).
func (c *call) onNotify(req *sip.Request, tx sip.ServerTransaction) {
	if !c.inOrder(req, tx) {
		return
	}
	_ = tx.Respond(sip.NewResponseFromRequest(req, 200, "OK", nil))
	w := c.refer
	if w == nil {
		return
	}
	code, reason, ok := parseSipfrag(req.Body())
	terminated := false
	if h := req.GetHeader("Subscription-State"); h != nil {
		terminated = strings.HasPrefix(strings.ToLower(strings.TrimSpace(h.Value())), "terminated")
	}
	switch {
	case ok && code >= 200 && code < 300:
		c.refer = nil
		w.finish(nil)
		c.bye()
		c.end(ReasonTransferred, OutcomeAnswered)
		if w.also != nil {
			go func() { _ = w.also.hangup(context.Background(), ReasonTransferred) }()
		}
	case ok && code >= 300:
		c.refer = nil
		w.finish(fmt.Errorf("%w: %d %s", ErrTransferFailed, code, reason))
	case terminated:
		c.refer = nil
		w.finish(fmt.Errorf("%w: subscription ended without an answer", ErrTransferFailed))
	}
}

// onRefer is the other side transferring us: accept, call the target
// (keeping the seance id), report progress by NOTIFY, and leave when the
// target answers (RFC 3515, RFC 5589 6).
func (c *call) onRefer(req *sip.Request, tx sip.ServerTransaction) {
	if !c.inOrder(req, tx) {
		return
	}
	rt := req.GetHeader("Refer-To")
	if rt == nil || !c.isConnected() {
		_ = tx.Respond(sip.NewResponseFromRequest(req, 400, "Bad Request", nil))
		return
	}
	target, err := referTarget(rt.Value())
	if err != nil {
		_ = tx.Respond(sip.NewResponseFromRequest(req, 400, "Bad Request", nil))
		return
	}
	if !c.throughServers(req) {
		// The phone dials a REFER's target on the user's account, so only
		// a REFER the account's servers bring (the PBX or proxy, whose
		// rules for the account apply to the new call as to any other) is
		// followed; a far end reached directly or calling directly (a
		// sip: link on a web page, sip.accept_calls_from anyone) could
		// otherwise have the phone call premium numbers (RFC 3515 5.1:
		// the recipient decides by its own policy whether to follow).
		c.p.log.Warn("transfer refused: the REFER did not come through the account's servers", "call", c.id,
			"source", req.Source(), "target", target)
		_ = tx.Respond(sip.NewResponseFromRequest(req, 403, "Forbidden", nil))
		return
	}
	if c.referIn {
		// One transfer at a time: each REFER taken places a call, so a far
		// end sending many would have the phone ring any number of
		// targets at once on the user's account.
		_ = tx.Respond(sip.NewResponseFromRequest(req, 491, "Request Pending", nil))
		return
	}
	c.referIn = true
	_ = tx.Respond(sip.NewResponseFromRequest(req, 202, "Accepted", nil))
	c.notifyRefer(100, "Trying", false)
	var hdrs []sip.Header
	if rb := req.GetHeader("Referred-By"); rb != nil {
		hdrs = append(hdrs, sip.NewHeader("Referred-By", rb.Value()))
	}
	seance, acc := c.c.SeanceID, c.acc.ID
	c.endHint = ReasonTransferred
	go func() {
		_, err := c.p.dial(context.Background(), dialOpts{number: target, accountID: acc, seance: seance, headers: hdrs,
			onSettled: func(status int, reason string) {
				_ = c.do(context.Background(), func() error {
					c.notifyRefer(status, reason, true)
					c.referIn = false
					if c.c.State == StateEnded {
						return nil // hung up (or BYE) while the NOTIFY waited: its BYE is out
					}
					if status >= 200 && status < 300 {
						c.bye()
						c.end(ReasonTransferred, OutcomeAnswered)
					} else {
						c.endHint = ""
					}
					return nil
				})
			}})
		if err != nil {
			_ = c.do(context.Background(), func() error {
				c.notifyRefer(503, "Service Unavailable", true)
				c.endHint, c.referIn = "", false
				return nil
			})
		}
	}()
}

// notifyRefer sends the progress of a REFER we accepted (RFC 3515 2.4.4).
func (c *call) notifyRefer(code int, reason string, final bool) {
	state := "active;expires=60"
	if final {
		state = "terminated;reason=noresource"
	}
	body := []byte("SIP/2.0 " + strconv.Itoa(code) + " " + reason + "\r\n")
	hdrs := []sip.Header{sip.NewHeader("Event", "refer"), sip.NewHeader("Subscription-State", state)}
	var err error
	if final && code >= 200 && code < 300 {
		// The transfer worked: our BYE follows, and goes after the far end
		// has this NOTIFY (a BYE overtaking it on UDP had the NOTIFY
		// refused, 481, and the far end never heard the transfer worked).
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, err = c.request(ctx, sip.NOTIFY, body, "message/sipfrag;version=2.0", hdrs...)
	} else {
		// The call goes on: the answer is not awaited (requestNoWait).
		err = c.requestNoWait(sip.NOTIFY, body, "message/sipfrag;version=2.0", hdrs...)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		c.p.log.Debug("NOTIFY", "call", c.id, "error", err)
	}
}
