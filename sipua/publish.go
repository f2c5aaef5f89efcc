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

// pubExpiry is the lifetime asked for a presence publication (RFC 3903);
// it is refreshed at 80% of what the server grants.
const pubExpiry = 600

// publication is the user's presence published on one account (RFC 3903):
// an initial PUBLISH with the PIDF, refreshes with SIP-If-Match and no
// body, a modification when the status changes, removal (Expires: 0) when
// stopped.
type publication struct {
	p      *Phone
	l      *line
	callID string
	change chan string

	mu     sync.Mutex
	cseq   uint32
	etag   string
	halted bool
	cancel context.CancelFunc
	done   chan struct{}
}

func newPublication(p *Phone, l *line) *publication {
	return &publication{p: p, l: l, callID: uuid.NewString(), cseq: 1, change: make(chan string, 1)}
}

func (pub *publication) start(value string) {
	ctx, cancel := context.WithCancel(context.Background())
	pub.mu.Lock()
	if pub.halted {
		pub.mu.Unlock()
		cancel()
		return
	}
	pub.cancel, pub.done = cancel, make(chan struct{})
	done := pub.done
	pub.mu.Unlock()
	go func() {
		defer close(done)
		pub.loop(ctx, value)
		uctx, ucancel := context.WithTimeout(context.Background(), 3*time.Second)
		if pub.etag != "" {
			_, _ = pub.send(uctx, "", 0)
		}
		ucancel()
	}()
}

func (pub *publication) stop() {
	pub.mu.Lock()
	pub.halted = true
	cancel, done := pub.cancel, pub.done
	pub.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

// set publishes a new status (the latest wins when several come quickly).
func (pub *publication) set(value string) {
	for {
		select {
		case pub.change <- value:
			return
		default:
		}
		select {
		case <-pub.change:
		default:
		}
	}
}

func (pub *publication) loop(ctx context.Context, value string) {
	backoff := subMinRetry
	exp, err := pub.sendGrace(ctx, value)
	for ctx.Err() == nil {
		wait := time.Duration(float64(exp) * regRefreshShare * float64(time.Second))
		if err != nil {
			pub.fail(err)
			wait, backoff = backoff, min(backoff*2, subMaxRetry)
		} else {
			backoff = subMinRetry
		}
		t := time.NewTimer(max(wait, time.Second))
		refresh := ""
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case v := <-pub.change:
			t.Stop()
			value, refresh = v, v
		case <-t.C:
		}
		if err != nil || pub.etag == "" {
			refresh = value // start over: a new publication
			pub.etag = ""
		}
		exp, err = pub.sendGrace(ctx, refresh)
		if err != nil && pub.etag != "" && ctx.Err() == nil {
			// 412 Conditional Request Failed (RFC 3903 6.3): the server lost
			// it; publish anew. Not when a stop cut the refresh short: the
			// publication is still there, and the removal that follows the
			// stop needs its entity-tag.
			pub.etag = ""
			exp, err = pub.sendGrace(ctx, value)
		}
	}
}

// sendGrace sends a PUBLISH that a stop does not cut short at once: an
// answer arriving within 3 s still gives the entity-tag (a new one on
// every success, RFC 3903 4.1), so the removal that follows the stop can
// name the publication. Cut short, the server would keep it until it
// expires: the phone would stay "available" after it quit.
func (pub *publication) sendGrace(ctx context.Context, value string) (int, error) {
	gctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(3*time.Second, cancel) })
	defer stop()
	return pub.send(gctx, value, pubExpiry)
}

func (pub *publication) fail(err error) {
	pub.p.log.Info("presence publication failed", "account", pub.l.acc.ID, "error", err)
	pub.p.bus.Publish(Event{Kind: EventSubscriptionFailed, Office: OfficeChange{AccountID: pub.l.acc.ID, Event: "presence"}})
}

// send sends one PUBLISH: with a value, the PIDF of it; without, a refresh
// (or with expires 0 a removal) of the publication named by the ETag.
func (pub *publication) send(ctx context.Context, value string, expires int) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, subTimeout)
	defer cancel()
	l := pub.l
	a := aor(l.acc)
	req := sip.NewRequest(sip.PUBLISH, a)
	from := &sip.FromHeader{Address: a, Params: sip.NewParams()}
	from.Params.Add("tag", sip.GenerateTagN(16))
	req.AppendHeader(from)
	req.AppendHeader(&sip.ToHeader{Address: a})
	cid := sip.CallIDHeader(pub.callID)
	req.AppendHeader(&cid)
	pub.mu.Lock()
	seq := pub.cseq
	pub.cseq++
	pub.mu.Unlock()
	req.AppendHeader(&sip.CSeqHeader{SeqNo: seq, MethodName: sip.PUBLISH})
	req.AppendHeader(sip.NewHeader("Event", "presence"))
	req.AppendHeader(sip.NewHeader("Expires", strconv.Itoa(expires)))
	if pub.etag != "" {
		req.AppendHeader(sip.NewHeader("SIP-If-Match", pub.etag))
	}
	if value != "" {
		req.AppendHeader(sip.NewHeader("Content-Type", "application/pidf+xml"))
		req.SetBody(buildPIDF(a.String(), value))
	}
	l.prepare(req)
	res, err := doRequest(ctx, l.client, req)
	if err == nil && (res.StatusCode == 401 || res.StatusCode == 407) {
		res, err = doDigest(ctx, l.client, req, res, sipgo.DigestAuth{Username: l.authUser(), Password: l.password()})
		pub.mu.Lock()
		pub.cseq = max(pub.cseq, req.CSeq().SeqNo+1)
		pub.mu.Unlock()
	}
	if err != nil {
		return 0, fmt.Errorf("%w: PUBLISH: %w", ErrSubscription, err)
	}
	if !res.IsSuccess() {
		return 0, fmt.Errorf("%w: PUBLISH answered %d %s", ErrSubscription, res.StatusCode, res.Reason)
	}
	if h := res.GetHeader("SIP-ETag"); h != nil {
		pub.etag = strings.TrimSpace(h.Value())
	}
	granted := expires
	if h := res.GetHeader("Expires"); h != nil {
		if n, err := strconv.Atoi(strings.TrimSpace(h.Value())); err == nil && n > 0 {
			granted = min(n, expires)
		}
	}
	return max(granted, 1), nil
}

// myPresence is the user's status as published: dnd while do-not-disturb
// is on, busy while a call is up, else the user's choice (available, away,
// busy).
func (o *office) myPresence() string {
	p := o.p
	p.mu.Lock()
	dnd, choice, calls := p.settings.SIP.DoNotDisturb, p.settings.SIP.PresenceStatus, len(p.calls)
	p.mu.Unlock()
	switch {
	case dnd:
		return PresenceDND
	case calls > 0 || choice == PresenceBusy:
		return PresenceBusy
	case choice == PresenceAway:
		return PresenceAway
	}
	return PresenceAvailable
}

// MyPresence is the status the phone publishes for its user.
func (p *Phone) MyPresence() string { return p.office.myPresence() }

// republish sends the user's status again where it changed.
func (o *office) republish() {
	v := o.myPresence()
	o.mu.Lock()
	changed := v != o.lastPresence
	o.lastPresence = v
	pubs := make([]*publication, 0, len(o.pubs))
	for _, pub := range o.pubs {
		pubs = append(pubs, pub)
	}
	o.mu.Unlock()
	if !changed {
		return
	}
	for _, pub := range pubs {
		pub.set(v)
	}
	o.changed("", "")
}
