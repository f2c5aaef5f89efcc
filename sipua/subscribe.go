package sipua

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/emiago/sipgo"
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

// subError is a SUBSCRIBE the notifier refused.
type subError struct{ status int }

func (e subError) Error() string { return fmt.Sprintf("SUBSCRIBE answered %d", e.status) }

// send sends one SUBSCRIBE in the current dialog (the first one makes it)
// and gives the granted expiry.
func (s *subscription) send(ctx context.Context, expires int) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, subTimeout)
	defer cancel()
	req := s.request(expires)
	res, err := s.l.client.Do(ctx, req)
	if err == nil && (res.StatusCode == 401 || res.StatusCode == 407) {
		res, err = s.l.client.DoDigestAuth(ctx, req, res, sipgo.DigestAuth{Username: s.l.authUser(), Password: s.l.password()})
		s.mu.Lock()
		s.cseq = max(s.cseq, req.CSeq().SeqNo+1)
		s.mu.Unlock()
	}
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrSubscription, err)
	}
	if !res.IsSuccess() {
		return 0, fmt.Errorf("%w: %w", ErrSubscription, subError{int(res.StatusCode)})
	}
	s.established(res)
	granted := expires
	if h := res.GetHeader("Expires"); h != nil {
		if n, err := strconv.Atoi(strings.TrimSpace(h.Value())); err == nil && n >= 0 {
			granted = min(n, expires)
		}
	}
	return max(granted, 1), nil
}

// sendGrace sends a SUBSCRIBE that a stop does not cut short at once: an
// answer arriving within 3 s still establishes the dialog, so the
// unsubscribe that follows the stop can end it at the notifier.
func (s *subscription) sendGrace(ctx context.Context) (int, error) {
	gctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(3*time.Second, cancel) })
	defer stop()
	return s.send(gctx, s.expiry)
}

// established takes the dialog's remote tag, target and route set from a
// 2xx (RFC 6665 4.1.2.1, RFC 3261 12.1.2).
func (s *subscription) established(res *sip.Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active = true
	if to := res.To(); to != nil && s.remoteTag == "" {
		s.remoteTag, _ = to.Params.Get("tag")
	}
	if c := res.Contact(); c != nil {
		s.remote = *c.Address.Clone()
	}
	if s.routes == nil {
		rr := res.GetHeaders("Record-Route")
		for i := len(rr) - 1; i >= 0; i-- {
			if h, ok := rr[i].(*sip.RecordRouteHeader); ok {
				s.routes = append(s.routes, *h.Address.Clone())
			}
		}
	}
}

// request builds a SUBSCRIBE of the current dialog: the first goes to the
// resource, later ones to the remote target with the route set. Both leave
// toward the account's server (outbound proxy or domain).
func (s *subscription) request(expires int) *sip.Request {
	s.mu.Lock()
	ru := s.target
	if s.remoteTag != "" {
		ru = s.remote
	}
	req := sip.NewRequest(sip.SUBSCRIBE, *ru.Clone())
	from := &sip.FromHeader{Address: aor(s.l.acc), Params: sip.NewParams()}
	from.Params.Add("tag", s.localTag)
	to := &sip.ToHeader{Address: s.target, Params: sip.NewParams()}
	if s.remoteTag != "" {
		to.Params.Add("tag", s.remoteTag)
	}
	cid := sip.CallIDHeader(s.callID)
	cseq := s.cseq
	s.cseq++
	routes := s.routes
	s.mu.Unlock()
	req.AppendHeader(from)
	req.AppendHeader(to)
	req.AppendHeader(&cid)
	req.AppendHeader(&sip.CSeqHeader{SeqNo: cseq, MethodName: sip.SUBSCRIBE})
	ct := s.l.contactHeader()
	req.AppendHeader(&ct)
	req.AppendHeader(sip.NewHeader("Event", s.event))
	req.AppendHeader(sip.NewHeader("Accept", s.accept))
	req.AppendHeader(sip.NewHeader("Expires", strconv.Itoa(expires)))
	req.AppendHeader(sip.NewHeader("Allow", allowMethods))
	s.l.prepare(req)
	for _, r := range routes {
		req.AppendHeader(&sip.RouteHeader{Address: r})
	}
	return req
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

// onNotify takes a NOTIFY of this subscription's dialog. It is answered
// here; out-of-order NOTIFYs (a lower CSeq than one already taken, RFC 3261
// 12.2.2) are answered and ignored.
func (s *subscription) onNotify(req *sip.Request, tx sip.ServerTransaction) {
	fromTag := ""
	if f := req.From(); f != nil {
		fromTag, _ = f.Params.Get("tag")
	}
	var seq uint32
	if c := req.CSeq(); c != nil {
		seq = c.SeqNo
	}
	s.mu.Lock()
	if s.remoteTag != "" && fromTag != s.remoteTag {
		s.mu.Unlock()
		_ = tx.Respond(sip.NewResponseFromRequest(req, 481, "Subscription Does Not Exist", nil))
		return
	}
	// A NOTIFY may come before the 2xx of SUBSCRIBE (RFC 6665 4.1.2.4): it
	// makes the dialog.
	s.remoteTag = fromTag
	if c := req.Contact(); c != nil {
		s.remote = *c.Address.Clone()
	}
	stale := seq != 0 && seq <= s.lastCSeq
	if !stale {
		s.lastCSeq = seq
	}
	s.mu.Unlock()
	// The body is taken before the 200 goes: whoever sees the answer sees
	// the new state (parsing is bounded by maxNotifyBody).
	defer func() { _ = tx.Respond(sip.NewResponseFromRequest(req, 200, "OK", nil)) }()
	if stale {
		return
	}
	state := ""
	if h := req.GetHeader("Subscription-State"); h != nil {
		state = strings.ToLower(strings.TrimSpace(strings.SplitN(h.Value(), ";", 2)[0]))
	}
	body := req.Body()
	ctype := ""
	if h := req.ContentType(); h != nil {
		ctype = strings.ToLower(strings.TrimSpace(strings.SplitN(h.Value(), ";", 2)[0]))
	}
	switch {
	case len(body) > maxNotifyBody:
		s.p.log.Warn("NOTIFY body too large, ignored", "event", s.event, "bytes", len(body))
	case len(body) > 0:
		s.notify(ctype, body)
	}
	if state == "terminated" {
		// The notifier ended it (timeout, deactivated, rejected ...):
		// subscribe again in a new dialog, after the usual wait.
		s.notify("", nil)
		s.mu.Lock()
		s.active = false
		s.mu.Unlock()
		s.forget()
		select {
		case s.kick <- false:
		default:
		}
	}
}

// subTable finds a subscription by the dialog of a NOTIFY: Call-ID and our
// tag (the NOTIFY's To tag); the remote tag is checked by the subscription.
type subTable struct {
	mu sync.Mutex
	m  map[string]*subscription
}

func (t *subTable) add(s *subscription) {
	s.mu.Lock()
	k := dialogKey(s.callID, s.localTag)
	s.mu.Unlock()
	t.mu.Lock()
	if t.m == nil {
		t.m = map[string]*subscription{}
	}
	t.m[k] = s
	t.mu.Unlock()
}

func (t *subTable) forget(s *subscription) {
	s.mu.Lock()
	k := dialogKey(s.callID, s.localTag)
	s.mu.Unlock()
	t.mu.Lock()
	if t.m[k] == s {
		delete(t.m, k)
	}
	t.mu.Unlock()
}

func (t *subTable) find(req *sip.Request) (*subscription, bool) {
	cid, to := req.CallID(), req.To()
	if cid == nil || to == nil {
		return nil, false
	}
	tag, _ := to.Params.Get("tag")
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.m[dialogKey(cid.Value(), tag)]
	return s, ok
}

// onNotify routes a NOTIFY: to a subscription of ours by its dialog, else
// to the call it belongs to (REFER progress), else 481.
func (p *Phone) onNotify(req *sip.Request, tx sip.ServerTransaction) {
	if s, ok := p.subs.find(req); ok {
		s.onNotify(req, tx)
		return
	}
	p.inDialog(func(c *call, req *sip.Request, tx sip.ServerTransaction) { c.onNotify(req, tx) })(req, tx)
}
