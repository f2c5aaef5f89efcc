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
