package sipua

import (
	"sync"
	"time"

	"github.com/emiago/sipgo/sip"
)

// reinviteAck is a 2xx of ours to the far end's re-INVITE waiting for its
// ACK (resend2xx; onAck closes acked).
type reinviteAck struct {
	cseq  uint32
	once  sync.Once
	acked chan struct{}
}

// respond2xx sends res, our 2xx to the far end's re-INVITE req, and sends
// it again until the ACK comes: after T1, doubling up to T2, for at most
// 64*T1 (RFC 3261 13.3.1.4: the UAS core MUST; RFC 6026 leaves it to the
// TU, and sipgo's server transaction absorbs the far end's retransmitted
// INVITEs without answering them). Sent once only, a lost 200 left the far
// end's re-INVITE (a hold, a resume, a PBX's media move or session
// refresh) without an answer until it timed out, and the far end then
// ends the call (12.2.1.2).
func (c *call) respond2xx(req *sip.Request, tx sip.ServerTransaction, res *sip.Response) {
	w := &reinviteAck{acked: make(chan struct{})}
	if cs := req.CSeq(); cs != nil {
		w.cseq = cs.SeqNo
	}
	c.reinvAck.Store(w) // before the 200: its ACK may come at once
	if tx.Respond(res) != nil {
		c.reinvAck.CompareAndSwap(w, nil)
		return
	}
	go func() {
		defer c.reinvAck.CompareAndSwap(w, nil)
		giveUp := time.NewTimer(64 * sip.T1)
		defer giveUp.Stop()
		wait := sip.T1
		t := time.NewTimer(wait)
		defer t.Stop()
		for {
			select {
			case <-w.acked:
				return
			case <-c.done:
				return
			case <-tx.Done():
				return
			case <-giveUp.C:
				return
			case <-t.C:
				if tx.Respond(res) != nil {
					return
				}
				wait = min(2*wait, sip.T2)
				t.Reset(wait)
			}
		}
	}()
}

// reinviteAcked takes an ACK: the one our 2xx to the far end's re-INVITE
// waits for stops its retransmissions.
func (c *call) reinviteAcked(ack *sip.Request) {
	w := c.reinvAck.Load()
	if w == nil || ack.CSeq() == nil || ack.CSeq().SeqNo != w.cseq {
		return
	}
	w.once.Do(func() { close(w.acked) })
}
