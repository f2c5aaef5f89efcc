package sipua

import (
	"context"
	"time"
)

// Incoming calls ringing at once are bounded (maxRingingIn; more get 486
// Busy Here), and each rings at most sip.ring_timeout_s, then ends as
// missed with reason no-answer (issue 12): 1,000 INVITEs do not leave 1,000
// calls ringing forever.

// takeRingSlot reserves one of the ringing places; false when all are taken.
func (p *Phone) takeRingSlot() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ringing >= maxRingingIn {
		return false
	}
	p.ringing++
	return true
}

// freeRingSlot gives a place back once the INVITE has its final answer.
func (p *Phone) freeRingSlot() {
	p.mu.Lock()
	p.ringing--
	p.mu.Unlock()
}

// ringTimeout is sip.ring_timeout_s as a duration.
func (p *Phone) ringTimeout() time.Duration {
	if s := p.settingsNow().SIP.RingTimeoutS; s > 0 {
		return time.Duration(s) * time.Second
	}
	return defaultRingFor
}

// ringTimedOut ends a call nobody answered in time: 480 to the caller
// (RFC 3261 21.4.18, the callee did not answer), missed, no-answer.
func (c *call) ringTimedOut() {
	if c.c.State != StateRingingIn {
		return
	}
	sess := c.in
	go func() {
		_ = sess.Respond(480, "Temporarily Unavailable", nil)
		c.closeFinal()
	}()
	c.end(ReasonNoAnswer, OutcomeMissed)
}

// ringTimer fires once the call has rung for the ring timeout.
func (c *call) ringTimer() *time.Timer {
	return time.AfterFunc(c.p.ringTimeout(), func() {
		_ = c.do(context.Background(), func() error { c.ringTimedOut(); return nil })
	})
}
