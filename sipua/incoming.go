package sipua

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/emiago/sipgo/sip"
	"github.com/google/uuid"
)

// onInvite takes a new INVITE (or a re-INVITE inside a call). The handler
// goroutine stays until the INVITE has its final answer, as sipgo ends the
// server transaction when a handler returns.
func (p *Phone) onInvite(req *sip.Request, tx sip.ServerTransaction) {
	if to := req.To(); to != nil && to.Params.Has("tag") {
		c, ok := p.callForRequest(req)
		if !ok {
			noDialog(req, tx)
			return
		}
		if c.reinviting.Load() {
			// RFC 3261 14.2: an INVITE of ours on this dialog is in
			// progress; the far end retries after a random wait (14.1).
			// Waiting for ours instead left both sides waiting when the
			// far end did the same.
			_ = tx.Respond(sip.NewResponseFromRequest(req, 491, "Request Pending", nil))
			return
		}
		if !c.mayWait(req, tx) {
			return
		}
		err := c.do(context.Background(), func() error { c.onReinvite(req, tx); return nil })
		c.waiting.Add(-1)
		if err != nil {
			noDialog(req, tx)
		}
		return
	}
	if !p.mayCall(req) && !p.replacesConnected(req) {
		p.refuse(req, tx)
		return
	}
	if bad := unsupportedRequire(req); len(bad) > 0 {
		// RFC 3261 8.2.2.3: an extension the caller requires and we do
		// not have (100rel, precondition, timer ...) gets 420 naming it;
		// the caller may try again without. Ringing and answering as if
		// it were there broke what the caller relied on.
		res := sip.NewResponseFromRequest(req, 420, "Bad Extension", nil)
		res.AppendHeader(sip.NewHeader("Unsupported", strings.Join(bad, ", ")))
		_ = tx.Respond(res)
		return
	}
	l := p.lineForIncoming(req)
	if l == nil {
		_ = tx.Respond(sip.NewResponseFromRequest(req, 480, "Temporarily Unavailable", nil))
		return
	}
	var replaced *call
	if len(req.GetHeaders("Replaces")) > 1 {
		// RFC 3891 3: MUST 400; which call it replaces is not clear.
		_ = tx.Respond(sip.NewResponseFromRequest(req, 400, "Bad Request", nil))
		return
	}
	if h := req.GetHeader("Replaces"); h != nil {
		r, err := parseReplaces(h.Value())
		if err == nil {
			replaced = p.callByTags(r)
		}
		// RFC 3891 3: only a confirmed dialog is replaced here (an early
		// one we did not initiate, a call ringing in, gets 481: its caller
		// could otherwise have it answered without anyone taking it), and
		// not when early-only asks for an early one (486).
		if replaced == nil || !isConnectedState(replaced.snapshot().State) {
			_ = tx.Respond(sip.NewResponseFromRequest(req, 481, "Call/Transaction Does Not Exist", nil))
			return
		}
		if r.earlyOnly {
			_ = tx.Respond(sip.NewResponseFromRequest(req, 486, "Busy Here", nil))
			return
		}
	}
	if from := req.From(); from == nil || partyTooLong(from.Address) {
		_ = tx.Respond(sip.NewResponseFromRequest(req, 400, "Bad Request", nil))
		return
	}
	if replaced == nil && !p.roomForCall(req) {
		_ = tx.Respond(sip.NewResponseFromRequest(req, 486, "Busy Here", nil))
		return
	}
	if !p.takeRingSlot() {
		_ = tx.Respond(sip.NewResponseFromRequest(req, 486, "Busy Here", nil))
		return
	}
	ringDone := sync.OnceFunc(p.freeRingSlot) // on answer, or once the INVITE has its final answer
	defer ringDone()
	seance := ""
	if h := req.GetHeader(headerSeance); h != nil {
		if u, err := uuid.Parse(strings.TrimSpace(h.Value())); err == nil {
			seance = u.String()
		}
	}
	if replaced != nil {
		seance = replaced.snapshot().SeanceID
	}
	sess, err := l.dialogUA().ReadInvite(req, tx)
	if err != nil {
		_ = tx.Respond(sip.NewResponseFromRequest(req, 400, "Bad Request", nil))
		return
	}
	c := p.newCall(l, DirIn, seance)
	c.ringDone = ringDone
	c.c.TLS = req.Transport() == "TLS" // the lock on the call card (issue 18)
	c.in, c.dlg = sess, sess
	c.final = make(chan struct{})
	c.acked = make(chan struct{})
	from := req.From()
	c.c.Number, c.c.Name, c.c.URI = partyOf(from.DisplayName, from.Address)
	localTag, _ := sess.InviteRequest.To().Params.Get("tag")
	c.dkey = dialogKey(req.CallID().Value(), localTag)
	c.rtag, c.rtagSet = from.Params.GetOr("tag", ""), true // not yet shared: start publishes c
	c.noteSignalPeer(req)
	if req.Recipient.User == l.contactUser {
		c.edge = sourceAddr(req)
	}
	if !c.start() {
		_ = tx.Respond(sip.NewResponseFromRequest(req, 503, "Service Unavailable", nil))
		return
	}
	_ = c.do(context.Background(), func() error {
		c.onRing(req, replaced)
		return nil
	})
	// Every way a ringing call ends closes final once its answer is out.
	<-c.final
}

// onRing sends 180 and decides: DND, auto-answer, answer-after, or ring.
func (c *call) onRing(req *sip.Request, replaced *call) {
	s := c.p.settingsNow().SIP
	if c.refuseClearOffer(req) || c.refuseLocalMedia(req) {
		return
	}
	if s.DoNotDisturb && replaced == nil {
		c.begin(StateRingingIn)
		c.decline(486, "Busy Here")
		return
	}
	// An auto-answered call with nobody at the phone is answered right
	// below, in this goroutine: its 200 follows at once, and a 180 before
	// it rang for no one (a provisional answer is optional, RFC 3261
	// 13.3.1; each cost a message and a step of the transaction, about 4 %
	// of such a call's CPU, issue 20).
	answerNow := replaced == nil && s.AutoAnswer && !c.p.personAtPhone()
	var err error
	if !answerNow {
		err = c.in.Respond(180, "Ringing", nil)
	}
	// The name from contacts goes into call-started; 180 is out already.
	if name := c.p.contactName(c.c.Number); name != "" {
		c.c.Name = name
	}
	var (
		answer       *sip.Response
		code         int
		reason       string
		unanswerable error
	)
	if answerNow {
		// What the answer needs is made before call-started goes out: then
		// call-started and the move to active are published back to back,
		// and the history writes the entry answered in its first INSERT
		// instead of a second commit for the answer (issue 20).
		c.c.State = StateRingingIn
		answer, code, reason, unanswerable = c.prepareAnswer()
	}
	c.begin(StateRingingIn)
	if err != nil {
		c.closeFinal()
		c.end(ReasonCancelled, OutcomeMissed)
		return
	}
	go c.watchRinging()
	// Stopped once the INVITE has its final answer (closeFinal), without a
	// goroutine of its own waiting for that.
	rt := c.ringTimer()
	c.ringMu.Lock()
	c.ringT = rt
	c.ringMu.Unlock()
	select {
	case <-c.final: // answered already
		rt.Stop()
	default:
	}
	switch {
	case replaced != nil:
		// RFC 3891 3: a confirmed dialog is replaced without asking.
		if err := c.answer(); err == nil {
			_ = replaced.hangup(context.Background(), ReasonTransferred)
		}
	case answerNow && unanswerable != nil:
		c.decline(code, reason)
	case answerNow:
		c.sendAnswer(answer)
	case s.AutoAnswer:
		c.autoAnswer()
	case s.AllowCallInfoAnswer && c.throughServers(req):
		// Only the account's servers may have a call answered by itself
		// (a PBX's intercom or paging): from any other host (a caller with
		// sip.accept_calls_from anyone) the header opened the person's
		// microphone without anyone touching the phone. It rings instead.
		if d, ok := answerAfter(req); ok {
			c.answerAt = time.AfterFunc(d, func() {
				_ = c.do(context.Background(), func() error {
					if c.c.State == StateRingingIn {
						return c.answer()
					}
					return nil
				})
			})
		}
	}
}

// watchRinging ends a ringing call the caller cancelled (CANCEL) or that
// timed out.
func (c *call) watchRinging() {
	select {
	case <-c.in.Context().Done():
	case <-c.done:
		return
	}
	_ = c.do(context.Background(), func() error {
		if c.c.State == StateRingingIn {
			c.closeFinal()
			c.end(ReasonCancelled, OutcomeMissed)
		} else if c.c.State != StateEnded {
			c.end(c.remoteEndReason(), OutcomeAnswered)
		}
		return nil
	})
}

func (c *call) closeFinal() {
	c.finalOnce.Do(func() {
		if c.final != nil {
			close(c.final)
		}
		c.ringMu.Lock()
		if c.ringT != nil {
			c.ringT.Stop() // no longer ringing
		}
		c.ringMu.Unlock()
	})
}

// answer sends 200 with our SDP answer; the call is active at once, the ACK
// is awaited in the background (RFC 3261 13.3.1.4).
func (c *call) answer() error {
	if c.c.State != StateRingingIn {
		return ErrCallState
	}
	res, code, reason, err := c.prepareAnswer()
	if err != nil {
		c.decline(code, reason)
		return err
	}
	c.sendAnswer(res)
	return nil
}

// prepareAnswer makes the call's media session and the 200 with our SDP
// answer; when it cannot, the code and reason to decline the call with.
func (c *call) prepareAnswer() (*sip.Response, int, string, error) {
	if c.answerAt != nil {
		c.answerAt.Stop()
	}
	ms, err := c.p.media.NewSession(c.id, c.c.SeanceID, c.onDTMF)
	if err != nil {
		return nil, 500, "Server Internal Error", err
	}
	c.media = ms
	c.learnPublic() // STUN: our RTP address outside the NAT (nat_media.go)
	var body []byte
	if offer := c.in.InviteRequest.Body(); len(offer) > 0 {
		r, err := parseSDP(offer)
		var n negotiated
		if err == nil {
			n, err = c.chooseMedia(r, true)
		}
		if err == nil {
			_, n.keys, err = c.answerSec(r)
		}
		if err != nil {
			return nil, 488, "Not Acceptable Here", err
		}
		c.remoteHold = r.dir == dirSendOnly || r.dir == dirInactive
		dir := answerDirection(r.dir, false)
		if err := c.applyMedia(n, dir); err != nil {
			return nil, 500, "Server Internal Error", err
		}
		body = c.localSDP(c.sessionCodecs(), dir)
	} else {
		body = c.localSDP(c.p.media.Codecs(), dirSendRecv) // offer in 200, answer in ACK
	}
	res := sip.NewSDPResponseFromRequest(c.in.InviteRequest, body)
	ct := c.line.dialogContact()
	res.AppendHeader(&ct)
	res.AppendHeader(sip.NewHeader("Allow", allowMethods))
	return res, 0, "", nil
}

// sendAnswer sends res, the 200 of prepareAnswer, and makes the call
// active.
func (c *call) sendAnswer(res *sip.Response) {
	sess := c.in
	go func() {
		err := sess.WriteResponse(res)
		c.closeFinal()
		if err != nil {
			c.p.log.Info("answer not confirmed", "call", c.id, "error", err)
			_ = c.do(context.Background(), func() error {
				if c.c.State != StateEnded {
					// RFC 3261 13.3.1.4: no ACK for 64*T1, the dialog is
					// confirmed all the same and the session SHOULD end
					// with a BYE (the caller may think the call is up).
					c.bye()
					c.end(ReasonFailed, OutcomeAnswered)
				}
				return nil
			})
		}
	}()
	c.connected()
	c.ringDone() // answered: no longer ringing, though the ACK may still be on its way
}

// decline refuses a ringing call with code (486 Busy Here, 603 Decline).
func (c *call) decline(code int, reason string) {
	sess := c.in
	go func() {
		_ = sess.Respond(code, reason, nil)
		c.closeFinal()
	}()
	c.c.Declined = true
	c.end(ReasonDeclined, OutcomeDeclined)
}

// lineForIncoming picks the account an INVITE is for: the one whose user is
// in the Request-URI or To, else the selected one, else the first enabled.
func (p *Phone) lineForIncoming(req *sip.Request) *line {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, id := range p.order {
		// Our Contact, as the registrar forwards calls to it.
		if l := p.lines[id]; l.acc.Enabled && l.client != nil && req.Recipient.User == l.contactUser {
			return l
		}
	}
	users := []string{req.Recipient.User}
	if to := req.To(); to != nil {
		users = append(users, to.Address.User)
	}
	for _, u := range users {
		for _, id := range p.order {
			if l := p.lines[id]; l.acc.Enabled && l.acc.Username == u && l.client != nil {
				return l
			}
		}
	}
	if l, ok := p.lines[p.selected]; ok && l.acc.Enabled && l.client != nil {
		return l
	}
	for _, id := range p.order {
		if l := p.lines[id]; l.acc.Enabled && l.client != nil {
			return l
		}
	}
	return nil
}

// replacesConnected says whether req's one Replaces names a connected call
// of ours: then it may come from any host. The dialog's Call-ID and both
// tags are known only to its parties (RFC 3891 6), and a transferee that
// an attended transfer sends to the Contact of our call (the far end's
// phone builds Refer-To from it) reaches us directly, not through the
// account's servers; that Contact no longer carries the user that lets
// calls in (line.go dialogContact). The checks of onInvite still apply.
func (p *Phone) replacesConnected(req *sip.Request) bool {
	hs := req.GetHeaders("Replaces")
	if len(hs) != 1 {
		return false
	}
	r, err := parseReplaces(hs[0].Value())
	if err != nil || r.earlyOnly {
		return false
	}
	c := p.callByTags(r)
	return c != nil && isConnectedState(c.snapshot().State)
}

// supportedExtensions are the option tags the phone implements as a UAS:
// Replaces (RFC 3891).
var supportedExtensions = []string{"replaces"}

// unsupportedRequire lists the option tags of req's Require headers the
// phone does not implement.
func unsupportedRequire(req *sip.Request) []string {
	var out []string
	for _, h := range req.GetHeaders("Require") {
		for _, tag := range strings.Split(h.Value(), ",") {
			tag = strings.ToLower(strings.TrimSpace(tag))
			if tag != "" && !slices.Contains(supportedExtensions, tag) && !slices.Contains(out, tag) {
				out = append(out, tag)
			}
		}
	}
	return out
}

// answerAfter reads Call-Info: <...>;answer-after=N (the auto-answer hint
// of many PBXs).
func answerAfter(req *sip.Request) (time.Duration, bool) {
	for _, h := range req.GetHeaders("Call-Info") {
		v := strings.ToLower(h.Value())
		i := strings.Index(v, "answer-after=")
		if i < 0 {
			continue
		}
		num := v[i+len("answer-after="):]
		if j := strings.IndexAny(num, ";, "); j >= 0 {
			num = num[:j]
		}
		n, err := strconv.Atoi(num)
		if err != nil || n < 0 || n > 3600 {
			continue
		}
		return time.Duration(n) * time.Second, true
	}
	return 0, false
}
