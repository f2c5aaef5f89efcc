package sipua

import (
	"context"
	"errors"
	"fmt"
)

// holdOthers puts every connected call that this phone does not hold yet on
// hold (re-INVITE, RFC 3264 8.4) before a new conversation starts, as a desk
// phone does: dialling or answering while a call is connected first holds
// it, and only Conference joins calls. A held call is sendonly, so the
// tab's microphone never reaches it (audio: talking sessions are sendrecv).
// except is the call being answered. When a hold fails, nothing new starts.
func (p *Phone) holdOthers(ctx context.Context, except string) error {
	p.mu.Lock()
	calls := make([]*call, 0, len(p.calls))
	for id, c := range p.calls {
		if id != except {
			calls = append(calls, c)
		}
	}
	p.mu.Unlock()
	for _, c := range calls {
		err := c.do(ctx, func() error {
			if !c.isConnected() || c.localHold {
				return nil
			}
			// An answered incoming call takes no re-INVITE before its ACK
			// (RFC 3261 14.2; sipgo's dialog is still writing the 2xx until
			// then). onAck closes acked without the call's goroutine.
			if c.acked != nil {
				select {
				case <-c.acked:
				case <-c.final:
					select {
					case <-c.acked:
					default:
						return nil // the 2xx was never confirmed: the call ends
					}
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			return c.setHold(ctx, true)
		})
		if err != nil && !errors.Is(err, ErrNoCall) { // ended meanwhile: nothing to hold
			return fmt.Errorf("%w: %v", ErrHoldFirst, err)
		}
	}
	return nil
}

// personAtPhone: someone listens at this phone, so a call answered here
// (auto-answer) starts a conversation and holds the connected one first.
// That is so when calls need a tab holding the audio (audio.require_tab) or
// a tab holds it now. With neither (scripts, load tests, an unattended
// answering machine) auto-answer connects every call at once, as before.
func (p *Phone) personAtPhone() bool {
	if p.settingsNow().Audio.RequireTab {
		return true
	}
	return p.tabHeld != nil && p.tabHeld()
}

// autoAnswer answers a ringing call for sip.auto_answer. With a person at
// the phone it goes through Answer, which holds the connected call first;
// that runs outside the ringing call's goroutine (holding waits for other
// calls' goroutines, and two calls auto-answered at once would wait for
// each other). Otherwise the call is answered at once, in its goroutine.
func (c *call) autoAnswer() {
	if !c.p.personAtPhone() {
		_ = c.answer()
		return
	}
	go func() {
		if err := c.p.Answer(context.Background(), c.id); err != nil {
			c.p.log.Warn("auto-answer: call not answered", "call", c.id, "err", err)
		}
	}()
}
