package sipua

import (
	"context"
	"errors"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/emiago/sipgo"
	"github.com/google/uuid"

	"github.com/softphone/softphone/store"
)

// call is one call. Its goroutine (run) alone changes it: every command and
// every SIP event becomes an op on its queue (a serial operations queue, as
// in pion). Its life is ctx; the cause of ctx is the hang-up reason.
type call struct {
	p   *Phone
	id  string
	ops chan func()
	// ops that end the call (the far end's BYE, a hang-up): also taken
	// while an op waits for the answer to a request of ours (indialog.go)
	urgent chan func()
	// RFC 4733 digits from the media session, in arrival order, for run;
	// beyond its bound they are dropped (dtmfDropped) rather than piling
	// up goroutines or memory under a flood of events
	dtmfq       chan byte
	dtmfDropped atomic.Uint64
	ctx         context.Context
	cancel      context.CancelCauseFunc
	done        chan struct{}
	snap        atomic.Pointer[Call]

	// owned by run
	c          Call
	line       *line
	acc        store.Account
	out        *sipgo.DialogClientSession
	in         *sipgo.DialogServerSession
	dlg        dialog // in-dialog request sender of out or in
	media      MediaSession
	mediaTick  *time.Ticker  // the far end's silence checked (media_timeout.go), from the answer
	mediaFor   time.Duration // the media timeout taken at the answer (0: never)
	mediaSince time.Time     // connected or hold changed last: silence counts from here at the earliest
	neg        negotiated
	localHold  bool
	remoteHold bool
	conf       bool
	dkey       string        // key in Phone.dialogs
	stopWait   func()        // outgoing: hung up while dialling, CANCEL (cancel.go)
	final      chan struct{} // incoming: closed when the INVITE has its final answer
	acked      chan struct{} // incoming: closed when the ACK of our 2xx arrived (onAck)
	ackOnce    sync.Once
	refer      *referWait  // a REFER we sent, waiting for its outcome
	referIn    bool        // a REFER we took: its call is being placed
	endHint    string      // reason to use when the other side ends the call
	answerAt   *time.Timer // Call-Info answer-after; no-answer timeout of outgoing calls
	sdpSession uint64
	sdpVersion uint64
	onSettled  func(status int, reason string) // outgoing: told the final answer (transfers)
	finalOnce  sync.Once
	ringMu     sync.Mutex
	ringT      *time.Timer // incoming: the ring timeout, stopped by closeFinal
	byeing     bool        // a BYE of ours is on its way
	// a re-INVITE of ours waits for its answer; read off the call's
	// goroutine, which that wait holds (RFC 3261 14.2 glare, onInvite)
	reinviting atomic.Bool
	// requests of the far end waiting for this goroutine (mayWait)
	waiting atomic.Int32
	// a request of the caller's waits for the ACK of our 200 (afterAck)
	waitingForAck atomic.Bool
	// our 2xx to the far end's re-INVITE, sent again until its ACK
	// (resend2xx.go); set and read off the call's goroutine too
	reinvAck atomic.Pointer[reinviteAck]
	// outgoing: Call-ID of the INVITE and the flag set when its 180/183 is
	// read off the wire (ringSeen), even if sipgo loses it behind the 200
	ringID   string
	ringSeen *atomic.Bool

	// the other side's tag; with rtagSet, under p.mu (dialogmatch.go)
	rtag    string
	rtagSet bool
	sigPeer netip.Addr // where the far end's SIP comes from (mediasource.go)
	// incoming: where an INVITE to the Contact the account registered came
	// from, a provider's edge the registrar sent it through (throughServers)
	edge netip.Addr
	// incoming: gives the call's ringing place back (ringing.go); idempotent
	ringDone func()
	sec      callSec // SRTP (media_secure.go)
}

// reasonError is the cancel cause of a call's context: how it ended.
type reasonError struct{ reason string }

func (r reasonError) Error() string { return "call ended: " + r.reason }

func (p *Phone) newCall(l *line, dir Direction, seance string) *call {
	ctx, cancel := context.WithCancelCause(context.Background())
	now := time.Now()
	if seance == "" {
		seance = uuid.NewString()
	}
	c := &call{p: p, id: uuid.NewString(), ops: make(chan func()), urgent: make(chan func()), dtmfq: make(chan byte, dtmfQueue), ctx: ctx, cancel: cancel,
		done: make(chan struct{}), line: l, acc: l.acc, sdpSession: uint64(now.UnixNano() & 0x7fffffffffff)}
	c.c = Call{ID: c.id, SeanceID: seance, AccountID: l.acc.ID, Account: accountName(l.acc),
		Direction: dir, StartedAt: now, StateAt: now, Reason: ReasonNone, TLS: l.acc.Transport == "tls"}
	return c
}

// start registers the call with the phone and runs its goroutine. The first
// event (call-started) is published by the caller through begin.
// It is false when the phone is stopping: then no call may start.
func (c *call) start() bool {
	c.p.mu.Lock()
	defer c.p.mu.Unlock()
	if !c.p.serving {
		return false
	}
	c.p.calls[c.id] = c
	if c.dkey != "" {
		c.p.dialogs[c.dkey] = c
	}
	c.p.wg.Add(1)
	go c.run()
	return true
}

func (c *call) run() {
	defer c.p.wg.Done()
	defer close(c.done)
	for {
		select {
		case op := <-c.ops:
			op()
		case op := <-c.urgent:
			op()
		case d := <-c.dtmfq:
			c.dtmfIn(d)
		case <-c.mediaTicks():
			c.checkMedia()
		case <-c.ctx.Done():
		}
		if c.c.State == StateEnded {
			c.stopMediaWatch()
			return
		}
	}
}

// do runs fn on the call's goroutine and gives its error; ErrNoCall when
// the call has ended.
func (c *call) do(ctx context.Context, fn func() error) error {
	errc := make(chan error, 1)
	select {
	case c.ops <- func() { errc <- fn() }:
		return <-errc
	case <-c.done:
		return ErrNoCall
	case <-ctx.Done():
		return ctx.Err()
	}
}

// doUrgent is do for an op that ends the call (the far end's BYE, a
// hang-up). It runs on the call's goroutine too, but is also taken while
// another op waits there for the answer to one of our requests inside the
// dialog (a re-INVITE, INFO, REFER, NOTIFY: up to 32 s), which then gives
// up: a BYE is answered and ends the call at once (RFC 3261 15, 15.1.2),
// and so does the person's hang-up. They waited behind such a request.
func (c *call) doUrgent(ctx context.Context, fn func() error) error {
	errc := make(chan error, 1)
	select {
	case c.urgent <- func() { errc <- fn() }:
		return <-errc
	case <-c.done:
		return ErrNoCall
	case <-ctx.Done():
		return ctx.Err()
	}
}

// runUrgent runs an urgent op that came while an op waited for an answer;
// true when the call has ended by it.
func (c *call) runUrgent(op func()) bool {
	op()
	return c.c.State == StateEnded
}

// post runs fn on the call's goroutine without waiting.
func (c *call) post(fn func()) {
	go func() {
		select {
		case c.ops <- fn:
		case <-c.done:
		}
	}()
}

func (c *call) snapshot() Call {
	if s := c.snap.Load(); s != nil {
		return *s
	}
	return Call{ID: c.id}
}

// publish stores the snapshot and puts it on the bus.
func (c *call) publish(kind EventKind) {
	s := c.c
	c.snap.Store(&s)
	c.p.bus.Publish(Event{Kind: kind, At: time.Now(), Call: s})
}

// begin publishes call-started in the first state.
func (c *call) begin(state CallState) {
	c.c.State = state
	c.publish(EventCallStarted)
}

// setState moves the call and publishes call-state-changed.
func (c *call) setState(s CallState) {
	if c.c.State == s || c.c.State == StateEnded {
		return
	}
	c.c.State = s
	c.c.StateAt = time.Now()
	if s == StateActive && c.c.AnsweredAt.IsZero() {
		c.c.AnsweredAt = c.c.StateAt
		c.c.AnsweredBy = "no"
	}
	c.publish(EventCallStateChanged)
}

// connected recomputes the state of an answered call from its flags.
func (c *call) connected() {
	first := c.c.AnsweredAt.IsZero()
	c.setState(connectedState(c.conf, c.localHold, c.remoteHold))
	c.watchMedia()
	if first && !c.c.AnsweredAt.IsZero() && c.p.settingsNow().Recording.Mode == "all" {
		if r, ok := c.media.(recorder); ok {
			if id, err := r.SetRecording(true); err != nil {
				c.p.log.Warn("recording", "call", c.id, "error", err)
			} else {
				c.c.Recording = true
				if c.c.RecordingID == "" {
					c.c.RecordingID = id
				}
				c.publish(EventCallUpdated)
			}
		}
	}
}

// end finishes the call: state ended, reason, outcome; then frees it.
func (c *call) end(reason, outcome string) {
	if c.c.State == StateEnded {
		return
	}
	c.p.log.Debug("call ended", "call", c.id, "reason", reason, "outcome", outcome)
	now := time.Now()
	if c.c.AnsweredAt.IsZero() && outcome == OutcomeAnswered {
		outcome = OutcomeFailed
	}
	c.c.State = StateEnded
	c.c.StateAt = now
	c.c.EndedAt = now
	c.c.Reason = reason
	c.c.Outcome = outcome
	c.c.Recording = false
	if c.answerAt != nil {
		c.answerAt.Stop()
	}
	if c.media != nil {
		_ = c.media.Close()
	}
	if c.stopWait != nil {
		c.stopWait()
	}
	if c.refer != nil {
		c.refer.finish(errors.Join(ErrTransferFailed, errors.New("call ended")))
	}
	if c.ringID != "" {
		ringSeen.Delete(c.ringID)
	}
	c.p.mu.Lock()
	delete(c.p.calls, c.id)
	if c.dkey != "" && c.p.dialogs[c.dkey] == c && !c.byeing {
		// With a BYE on its way the dialog stays findable until it is done:
		// the ACK of our 200 may still come, and sipgo sends no BYE before it.
		delete(c.p.dialogs, c.dkey)
	}
	c.p.mu.Unlock()
	c.publish(EventCallEnded)
	c.cancel(reasonError{reason})
}

func dialogKey(callID, localTag string) string { return callID + "\x00" + localTag }

// contextCauseErr is the cause of the call's end (a reasonError).
func contextCauseErr(c *call) error { return context.Cause(c.ctx) }
