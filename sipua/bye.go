package sipua

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/emiago/sipgo"
	"github.com/emiago/sipgo/sip"
)

// stopAckWait is how long a phone that is shutting down waits for the ACK of
// a 200 it has just sent before it leaves the call without a BYE.
const stopAckWait = 2 * time.Second

// bye sends BYE in the background; Serve waits for it before closing.
func (c *call) bye() {
	out, in := c.out, c.in
	final := c.final // incoming calls: closed once our answer is confirmed
	c.byeing = true
	key := c.dkey
	target := c.remoteTarget()
	l := c.line
	c.p.wg.Add(1)
	go func() {
		defer c.p.wg.Done()
		defer func() {
			c.p.mu.Lock()
			if c.p.dialogs[key] == c {
				delete(c.p.dialogs, key)
			}
			c.p.mu.Unlock()
		}()
		if in != nil && final != nil {
			// RFC 3261 15: the callee must not send BYE before the ACK of its
			// 2xx or the transaction's time-out (64*T1, after which sipgo's
			// WriteResponse returns and final is closed); WriteResponse also
			// writes the dialog's state until then. A phone shutting down
			// waits a little, then leaves without the BYE it may not send.
			select {
			case <-final:
			case <-c.p.stopping:
				select {
				case <-final:
				case <-time.After(stopAckWait):
					c.p.log.Info("BYE not sent: the answer was not acknowledged before shutdown", "call", c.id)
					return
				}
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := sendBye(ctx, out, in, target, l); err != nil {
			c.p.log.Debug("BYE", "call", c.id, "error", err)
		}
	}()
}

// sendBye sends BYE in the dialog of out or in and answers a 401/407 once
// with digest credentials (sipgo's Bye gives up on a challenge).
func sendBye(ctx context.Context, out *sipgo.DialogClientSession, in *sipgo.DialogServerSession, target sip.Uri, l *line) error {
	var auth sip.Header
	for attempt := 0; ; attempt++ {
		req := sip.NewRequest(sip.BYE, target)
		var err error
		switch {
		case out != nil:
			if out.InviteResponse == nil {
				return errors.New("BYE: no answer to the INVITE")
			}
			if auth != nil {
				req.AppendHeader(auth)
			}
			err = out.WriteBye(ctx, req)
		case in != nil:
			req.SetTransport(in.InviteRequest.Transport())
			if auth != nil {
				req.AppendHeader(auth)
			}
			err = in.WriteBye(ctx, req)
		default:
			return nil
		}
		var de sipgo.ErrDialogResponse
		if err == nil || attempt > 0 || !errors.As(err, &de) || (de.Res.StatusCode != 401 && de.Res.StatusCode != 407) ||
			!l.fromServer(de.Res) { // the digest leak (indialog.go)
			return err
		}
		if auth, err = digestHeader(req, de.Res, l.authUser(), l.password()); err != nil {
			return fmt.Errorf("BYE: %w", err)
		}
	}
}
