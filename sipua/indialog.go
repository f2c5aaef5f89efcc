package sipua

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/emiago/sipgo"
	"github.com/emiago/sipgo/sip"
	"github.com/icholy/digest"

	"github.com/softphone/softphone/audio"
)

// dialog is what a call needs of its sipgo dialog session, client side
// (we called) or server side (we were called), for requests inside it.
type dialog interface {
	TransactionRequest(ctx context.Context, req *sip.Request) (sip.ClientTransaction, error)
	WriteRequest(req *sip.Request) error
	Context() context.Context
	ReadRequest(req *sip.Request, tx sip.ServerTransaction) error
}

const inDialogTimeout = 32 * time.Second // Timer F

// remoteTarget is the Request-URI of requests inside the dialog: the
// other side's Contact (RFC 3261 12.2.1.1).
func (c *call) remoteTarget() sip.Uri {
	if c.out != nil && c.out.InviteResponse != nil {
		if ct := c.out.InviteResponse.Contact(); ct != nil {
			return *ct.Address.Clone()
		}
		return *c.out.InviteRequest.Recipient.Clone()
	}
	if c.in != nil {
		if ct := c.in.InviteRequest.Contact(); ct != nil {
			return *ct.Address.Clone()
		}
	}
	return sip.Uri{}
}

// tags gives the Call-ID, our tag and the other side's tag of the dialog.
func (c *call) tags() (callID, local, remote string) {
	if c.out != nil {
		callID = c.out.InviteRequest.CallID().Value()
		local, _ = c.out.InviteRequest.From().Params.Get("tag")
		if c.out.InviteResponse != nil {
			remote, _ = c.out.InviteResponse.To().Params.Get("tag")
		}
		return
	}
	if c.in != nil {
		callID = c.in.InviteRequest.CallID().Value()
		local, _ = c.in.InviteRequest.To().Params.Get("tag")
		remote, _ = c.in.InviteRequest.From().Params.Get("tag")
	}
	return
}

// request sends a request inside the dialog and waits for its final answer.
// A 401/407 is answered once with digest credentials: sipgo leaves
// challenges inside a dialog to us.
func (c *call) request(ctx context.Context, method sip.RequestMethod, body []byte, ctype string, hdrs ...sip.Header) (*sip.Response, error) {
	if c.dlg == nil {
		return nil, fmt.Errorf("%s: %w", method, ErrCallState)
	}
	ctx, cancel := context.WithTimeout(ctx, inDialogTimeout)
	defer cancel()
	if c.in != nil && c.final != nil {
		// A call we answered: nothing goes inside its dialog before the
		// ACK of our 2xx (or the end of its retransmissions), as for BYE
		// (bye.go): the INVITE transaction is still in progress (RFC 3261
		// 14.1; RFC 6026 Accepted), and sipgo's WriteResponse writes the
		// session's InviteResponse until then, which requests read.
	wait:
		for {
			select {
			case <-c.final:
				break wait
			case op := <-c.urgent:
				if c.runUrgent(op) {
					return nil, fmt.Errorf("%s: %w", method, ErrNoCall)
				}
			case <-ctx.Done():
				return nil, fmt.Errorf("%s: %w", method, ctx.Err())
			}
		}
	}
	var auth sip.Header
	for attempt := 0; ; attempt++ {
		req := c.inDialogRequest(method, body, ctype, hdrs, auth)
		res, err := c.send(ctx, req)
		if err != nil || attempt > 0 || (res.StatusCode != 401 && res.StatusCode != 407) || !c.line.fromServer(res) {
			return res, err
		}
		if auth, err = digestHeader(req, res, c.line.authUser(), c.line.password()); err != nil {
			return res, nil
		}
	}
}

// inDialogRequest builds a request to the remote target with hdrs, an
// authorization (nil: none) and the body; the dialog adds the rest.
func (c *call) inDialogRequest(method sip.RequestMethod, body []byte, ctype string, hdrs []sip.Header, auth sip.Header) *sip.Request {
	req := sip.NewRequest(method, c.remoteTarget())
	for _, h := range hdrs {
		req.AppendHeader(h)
	}
	if auth != nil {
		req.AppendHeader(auth)
	}
	if ctype != "" {
		req.AppendHeader(sip.NewHeader("Content-Type", ctype))
	}
	req.SetBody(body)
	return req
}

// requestNoWait sends an in-dialog request whose answer changes nothing
// here (the progress NOTIFY of a REFER we took, RFC 3515 2.4.4) and goes
// on: its answer is awaited, and its transaction ended, on a goroutine of
// its own (bounded by inDialogTimeout). Awaited here, a far end that never
// answered held the call's other requests (hold, tones, a transfer) 5 s
// for each NOTIFY. It is sent on the call's goroutine, so its CSeq keeps
// its place among the dialog's requests. A call we answered whose ACK has
// not come yet sends it the waiting way (request).
func (c *call) requestNoWait(method sip.RequestMethod, body []byte, ctype string, hdrs ...sip.Header) error {
	if c.dlg == nil {
		return fmt.Errorf("%s: %w", method, ErrCallState)
	}
	if c.in != nil && c.final != nil {
		select {
		case <-c.final:
		default:
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_, err := c.request(ctx, method, body, ctype, hdrs...)
			return err
		}
	}
	tx, err := c.dlg.TransactionRequest(context.Background(), c.inDialogRequest(method, body, ctype, hdrs, nil))
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	log, id := c.p.log, c.id
	go func() {
		defer tx.Terminate()
		t := time.NewTimer(inDialogTimeout)
		defer t.Stop()
		for {
			select {
			case res := <-tx.Responses():
				if res.IsProvisional() {
					continue
				}
				if !res.IsSuccess() {
					log.Debug("in-dialog request refused", "call", id, "method", method, "status", res.StatusCode)
				}
				return
			case <-tx.Done():
				log.Debug("in-dialog request unanswered", "call", id, "method", method, "error", tx.Err())
				return
			case <-t.C:
				return
			}
		}
	}()
	return nil
}

func (c *call) send(ctx context.Context, req *sip.Request) (*sip.Response, error) {
	method := req.Method
	tx, err := c.dlg.TransactionRequest(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	accepted := false // a 2xx to our re-INVITE: the transaction lives on (reAck)
	defer func() {
		if !accepted {
			tx.Terminate()
		}
	}()
	for {
		select {
		case res := <-tx.Responses():
			if res.IsProvisional() {
				continue
			}
			if method == sip.INVITE && res.IsSuccess() {
				ack := sip.NewRequest(sip.ACK, c.remoteTarget())
				if err := c.dlg.WriteRequest(ack); err != nil {
					return res, fmt.Errorf("ACK: %w", err)
				}
				accepted = c.reAck(tx, ack)
			}
			return res, nil
		case <-tx.Done():
			err := tx.Err()
			if err == nil { // see doRequest
				err = errNoAnswer
			}
			return nil, fmt.Errorf("%s: %w", method, err)
		case op := <-c.urgent:
			// The far end's BYE or the person's hang-up: taken now, not
			// after this transaction's 32 s; a call it ends gives up the
			// wait (the transaction is terminated, its late answer dropped).
			if c.runUrgent(op) {
				return nil, fmt.Errorf("%s: %w", method, ErrNoCall)
			}
		case <-ctx.Done():
			return nil, fmt.Errorf("%s: %w", method, ctx.Err())
		}
	}
}

// reAck has ack sent again for each retransmission of the 2xx it
// acknowledged (RFC 3261 13.2.2.4: the UAC core MUST; the far end resends
// its 2xx until an ACK comes, and ends the call after 64*T1 without one,
// 13.3.1.4). sipgo keeps the transaction in the Accepted state for that
// (RFC 6026 7.2, Timer M, 32 s), where it ends by itself, and passes the
// retransmissions to this hook; terminated at once, they went unanswered,
// so a re-INVITE's lost ACK (UDP) cost the call 32 s later. False when
// the transaction has ended already.
func (c *call) reAck(tx sip.ClientTransaction, ack *sip.Request) bool {
	again := ack.Clone() // as sent: the same Via branch and CSeq
	client := c.line.client
	asIs := func(*sipgo.Client, *sip.Request) error { return nil }
	return tx.OnRetransmission(func(r *sip.Response) {
		if r.IsSuccess() {
			_ = client.WriteRequest(again.Clone(), asIs)
		}
	})
}

// fromServer says whether a response came from one of the account's
// servers. Only their challenges are answered inside a dialog: a far end
// reached directly (its Contact, no Record-Route) that answers 401/407
// with a nonce of its own gets a digest of the account's password it can
// try passwords against offline (the "SIP digest leak"); a call to it is
// all it takes, a sip: link on a web page dialled from the desktop.
func (l *line) fromServer(m sip.Message) bool {
	ip := sourceAddr(m)
	return ip.IsValid() && l.isServer(ip)
}

// digestHeader answers a 401/407 challenge (RFC 3261 22.2, RFC 2617).
func digestHeader(req *sip.Request, res *sip.Response, user, pass string) (sip.Header, error) {
	chName, authName := "WWW-Authenticate", "Authorization"
	if res.StatusCode == 407 {
		chName, authName = "Proxy-Authenticate", "Proxy-Authorization"
	}
	h := res.GetHeader(chName)
	if h == nil {
		return nil, fmt.Errorf("%d without %s", res.StatusCode, chName)
	}
	chal, err := digest.ParseChallenge(h.Value())
	if err != nil {
		return nil, err
	}
	chal.Algorithm = strings.ToUpper(chal.Algorithm)
	cred, err := digest.Digest(chal, digest.Options{Method: req.Method.String(), URI: req.Recipient.Addr(),
		Username: user, Password: pass})
	if err != nil {
		return nil, err
	}
	return sip.NewHeader(authName, cred.String()), nil
}

// localSDP describes our side for an offer or answer.
func (c *call) localSDP(codecs []audio.Codec, dir audio.Direction) []byte {
	la := c.media.LocalAddr()
	ip := c.line.localIP
	if la.IP != nil && !la.IP.IsUnspecified() {
		ip = la.IP.String()
	}
	if ip == "" {
		ip = "127.0.0.1"
	}
	port := la.Port
	if pub, ok := c.publicRTP(); ok { // behind a NAT (STUN, nat_media.go)
		ip, port = pub.Addr().String(), int(pub.Port())
	}
	c.sdpVersion++
	// After answerSec/answeredSec this repeats the agreed line; before any
	// exchange it is our offer (media_secure.go).
	sec, err := c.offerSec()
	if err != nil {
		c.p.log.Warn("SRTP offer", "call", c.id, "error", err)
	}
	return buildSDPSec(ip, port, codecs, dir, c.sdpSession, c.sdpVersion, sec)
}

// sessionCodecs is what we offer again in a re-INVITE: the codec in use
// and telephone-event when it was negotiated.
func (c *call) sessionCodecs() []audio.Codec {
	out := []audio.Codec{c.neg.codec}
	if c.neg.dtmfPT != 0 {
		te := audio.CodecTelephoneEvent
		te.PT = c.neg.dtmfPT
		out = append(out, te)
	}
	return out
}

// rtcpPorter is a media session that sends RTCP where a=rtcp says
// (audio.Session).
type rtcpPorter interface{ SetRTCPPort(port int) }

// setRTCPPort tells the media the far end's a=rtcp port (RFC 3605), 0
// for RTP + 1; before Start, which uses it for a new address.
func setRTCPPort(m any, port int) {
	if p, ok := m.(rtcpPorter); ok {
		p.SetRTCPPort(port)
	}
}

// applyMedia starts (or moves) RTP after an offer/answer.
func (c *call) applyMedia(n negotiated, dir audio.Direction) error {
	c.neg = n
	c.tellSignalPeer()
	if err := c.setKeys(n.keys); err != nil {
		return fmt.Errorf("media: %w", err)
	}
	c.holdForDTLS() // nothing clear before the handshake starts (media_dtls.go)
	setRTCPPort(c.media, n.rtcp)
	if err := c.media.Start(n.remote, n.codec, n.dtmfPT); err != nil {
		return fmt.Errorf("media: %w", err)
	}
	if err := c.startDTLS(); err != nil {
		return fmt.Errorf("media: %w", err)
	}
	c.media.SetDirection(dir)
	return nil
}

// onReinvite answers a re-INVITE: the other side holds, resumes or moves
// its media (RFC 3264 8.4). Runs on the call's goroutine.
func (c *call) onReinvite(req *sip.Request, tx sip.ServerTransaction) {
	if !c.afterAck() {
		noDialog(req, tx) // hung up meanwhile
		return
	}
	if err := c.dlg.ReadRequest(req, tx); err != nil {
		_ = tx.Respond(sip.NewResponseFromRequest(req, 500, "Server Internal Error", nil))
		return
	}
	if c.c.State != StateActive && c.c.State != StateHold && c.c.State != StateOnHold && c.c.State != StateConference {
		_ = tx.Respond(sip.NewResponseFromRequest(req, 491, "Request Pending", nil))
		return
	}
	body := req.Body()
	var dir audio.Direction
	if len(body) > 0 {
		r, err := parseSDP(body)
		if err == nil {
			var n negotiated
			n, err = c.chooseMedia(r, true)
			if err == nil {
				_, n.keys, err = c.answerSec(r)
			}
			if err == nil {
				c.remoteHold = r.dir == audio.SendOnly || r.dir == audio.Inactive
				dir = answerDirection(r.dir, c.localHold)
				err = c.applyMedia(n, dir)
			}
		}
		if err != nil {
			_ = tx.Respond(sip.NewResponseFromRequest(req, 488, "Not Acceptable Here", nil))
			return
		}
	} else {
		dir = audio.SendRecv
		if c.localHold {
			dir = audio.SendOnly
		}
	}
	res := sip.NewResponseFromRequest(req, 200, "OK", c.localSDP(c.sessionCodecs(), dir))
	res.AppendHeader(sip.NewHeader("Content-Type", "application/sdp"))
	ct := c.line.dialogContact()
	res.AppendHeader(&ct)
	c.respond2xx(req, tx, res)
	c.connected()
}
