package sipua

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/emiago/sipgo"
	"github.com/emiago/sipgo/sip"
)

// subError is a SUBSCRIBE the notifier refused.
type subError struct{ status int }

func (e subError) Error() string { return fmt.Sprintf("SUBSCRIBE answered %d", e.status) }

// send sends one SUBSCRIBE in the current dialog (the first one makes it)
// and gives the granted expiry.
func (s *subscription) send(ctx context.Context, expires int) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, subTimeout)
	defer cancel()
	req := s.request(expires)
	res, err := doRequest(ctx, s.l.client, req)
	if err == nil && (res.StatusCode == 401 || res.StatusCode == 407) {
		res, err = doDigest(ctx, s.l.client, req, res, sipgo.DigestAuth{Username: s.l.authUser(), Password: s.l.password()})
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
	ct := s.l.dialogContact()
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
