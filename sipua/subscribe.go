package sipua

import (
	"context"
	"sync"
	"time"

	"github.com/emiago/sipgo/sip"
	"github.com/google/uuid"
)

// Subscription timing (RFC 6665). A refresh goes at 80% of the granted
// expiry, like registrations; a failed or terminated subscription is made
// again with backoff from 2 s up to 2 min.
const (
	subDefaultExpiry = 600 // asked for; the notifier may grant less
	subMinRetry      = 2 * time.Second
	subMaxRetry      = 2 * time.Minute
	subTimeout       = 32 * time.Second // Timer F
	maxNotifyBody    = 16 << 10         // a NOTIFY body larger than this is ignored (hostile or broken)
)

// subscription is one RFC 6665 subscription of an account to an event
// package at a resource (a colleague's dialogs or presence, the account's
// own message-summary). Its loop owns the dialog: it subscribes, refreshes
// before expiry, subscribes again in a new dialog when the notifier
// forgets it (481, timeout, a NOTIFY terminating it), and unsubscribes
// (Expires: 0) when stopped.
type subscription struct {
	p      *Phone
	l      *line
	event  string  // Event header: dialog, presence, message-summary
	accept string  // Accept header
	target sip.Uri // the resource
	expiry int     // seconds asked for
	// notify gets each accepted NOTIFY body (nil body: the subscription is
	// no longer known to be alive, its state is unknown).
	notify func(ctype string, body []byte)

	// notifying takes the NOTIFYs one at a time: sipgo hands each request
	// to a goroutine of its own, and with the CSeq checked under mu but
	// the body taken after it, an earlier NOTIFY that passed the check
	// could take its body after a later one (notify.go).
	notifying sync.Mutex

	mu        sync.Mutex
	callID    string
	localTag  string
	remoteTag string
	remote    sip.Uri   // remote target (Contact of the 2xx or a NOTIFY)
	routes    []sip.Uri // route set, from Record-Route of the 2xx (reversed)
	cseq      uint32
	lastCSeq  uint32 // highest NOTIFY CSeq seen in this dialog
	active    bool   // a 2xx was received for the current dialog
	kick      chan bool
	halted    bool // stopped: never starts again
	running   bool
	cancel    context.CancelFunc
	done      chan struct{}
}

func newSubscription(p *Phone, l *line, event, accept string, target sip.Uri, notify func(string, []byte)) *subscription {
	exp := subDefaultExpiry
	if p.subExpiry > 0 {
		exp = p.subExpiry
	}
	return &subscription{p: p, l: l, event: event, accept: accept, target: target, expiry: exp,
		notify: notify, kick: make(chan bool, 1), done: make(chan struct{})}
}

// start runs the subscription's loop until stop (not after stop).
func (s *subscription) start() {
	ctx, cancel := context.WithCancel(context.Background())
	s.mu.Lock()
	if s.halted {
		s.mu.Unlock()
		cancel()
		return
	}
	s.cancel, s.running = cancel, true
	s.mu.Unlock()
	go func() {
		defer close(s.done)
		s.loop(ctx)
		s.forget()
		uctx, ucancel := context.WithTimeout(context.Background(), 3*time.Second)
		s.unsubscribe(uctx)
		ucancel()
	}()
}

// stop ends the loop; the subscription is ended with Expires: 0 first.
func (s *subscription) stop() {
	s.mu.Lock()
	s.halted = true
	cancel, running := s.cancel, s.running
	s.mu.Unlock()
	if running {
		cancel()
		<-s.done
	}
}

// renew makes the loop subscribe again in a new dialog at once (after a
// re-registration: the notifier may have lost us with the registrar).
func (s *subscription) renew() {
	select {
	case s.kick <- true:
	default:
	}
}

func (s *subscription) loop(ctx context.Context) {
	backoff := subMinRetry
	for ctx.Err() == nil {
		s.newDialog()
		exp, err := s.sendGrace(ctx)
		if ctx.Err() != nil {
			return
		}
		why := "failed"
		if err != nil {
			s.notify("", nil)
			s.fail(err)
		} else {
			why = s.hold(ctx, exp, &backoff)
		}
		switch why {
		case "":
			return
		case "renew":
			continue // at once: the registration came back
		}
		// Refused, lost or ended by the notifier: again after a wait that
		// grows while it keeps happening.
		if !s.sleep(ctx, backoff) {
			return
		}
		backoff = min(backoff*2, subMaxRetry)
	}
}

// hold refreshes the current dialog until it ends; it says why: "renew"
// (re-registration), "ended" (a NOTIFY terminated it), "failed" (a refresh
// was refused or not answered), "" (stopped).
func (s *subscription) hold(ctx context.Context, exp int, backoff *time.Duration) string {
	for {
		wait := time.Duration(float64(exp) * regRefreshShare * float64(time.Second))
		t := time.NewTimer(max(wait, time.Second))
		select {
		case <-ctx.Done():
			t.Stop()
			return ""
		case renew := <-s.kick:
			t.Stop()
			if renew {
				return "renew"
			}
			return "ended"
		case <-t.C:
		}
		var err error
		exp, err = s.sendGrace(ctx)
		if ctx.Err() != nil {
			return ""
		}
		if err != nil {
			s.notify("", nil)
			s.fail(err)
			return "failed" // 481 or no answer: the notifier lost us
		}
		*backoff = subMinRetry
	}
}

// sleep waits d; false when ctx ended. A renewal cuts it short.
func (s *subscription) sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
			return true
		case renew := <-s.kick:
			if renew {
				return true
			}
		}
	}
}

func (s *subscription) newDialog() {
	s.p.subs.forget(s)
	select {
	case <-s.kick: // meant for the dialog before; this one is new anyway
	default:
	}
	s.mu.Lock()
	s.callID, s.localTag, s.remoteTag = uuid.NewString(), sip.GenerateTagN(16), ""
	s.remote, s.routes, s.cseq, s.lastCSeq, s.active = s.target, nil, 1, 0, false
	s.mu.Unlock()
	s.p.subs.add(s)
}

func (s *subscription) forget() { s.p.subs.forget(s) }

func (s *subscription) fail(err error) {
	s.p.log.Info("subscription failed", "event", s.event, "to", s.target.String(), "error", err)
	s.p.bus.Publish(Event{Kind: EventSubscriptionFailed, Office: OfficeChange{AccountID: s.l.acc.ID, Event: s.event}})
}

// unsubscribe ends the current dialog, if one is up (RFC 6665 4.1.2.3).
func (s *subscription) unsubscribe(ctx context.Context) {
	s.mu.Lock()
	up := s.active
	s.active = false
	s.mu.Unlock()
	if !up {
		return
	}
	t0 := time.Now()
	_, err := s.send(ctx, 0)
	s.p.log.Debug("unsubscribed", "event", s.event, "to", s.target.String(), "error", err, "took", time.Since(t0))
}
