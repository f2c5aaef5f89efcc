package sipua

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/emiago/sipgo"
	"github.com/emiago/sipgo/sip"
)

// Registration timing. sipgo does not refresh registrations by itself.
const (
	regRefreshShare = 0.8              // refresh at 80% of the granted expiry
	regMinRetry     = 2 * time.Second  // first retry after a failure
	regMaxRetry     = 2 * time.Minute  // backoff cap
	keepAliveUDP    = 25 * time.Second // NAT bindings on UDP last ~30 s
	keepAliveTCP    = 60 * time.Second
	regTimeout      = 32 * time.Second // Timer F
)

// start runs the registration loop of an enabled account.
func (l *line) start() {
	if l.noListener != "" {
		// A state, never an exit: GET /accounts and the page show the cause.
		l.setState(RegFailed, l.noListener, false, true)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	final := make(chan string, 1)
	l.mu.Lock()
	l.done = done
	l.stop = func(state string) {
		select {
		case final <- state:
		default:
		}
		cancel()
		<-done
	}
	l.mu.Unlock()
	go func() {
		defer close(done)
		registered := l.loop(ctx)
		if registered {
			uctx, ucancel := context.WithTimeout(context.Background(), 3*time.Second)
			_, _ = l.register(uctx, 0) // unregister (RFC 3261 10.2.2)
			ucancel()
		}
		st := RegUnregistered
		select {
		case st = <-final:
		default:
		}
		l.setState(st, "", false, false)
	}()
}

// halt stops the loop (if running), unregistering, and leaves state.
func (l *line) halt(state string) {
	l.mu.Lock()
	stop := l.stop
	l.stop = nil
	l.mu.Unlock()
	if stop != nil {
		stop(state)
		return
	}
	l.setState(state, "", false, false)
}

// loop registers and refreshes until ctx ends; it says whether the line was
// registered at the end.
func (l *line) loop(ctx context.Context) bool {
	backoff := regMinRetry
	registered := false
	every := l.p.kaUDP
	if l.acc.Transport == "tcp" || l.acc.Transport == "tls" {
		every = l.p.kaTCP
	}
	ka := time.NewTicker(every) // runs across refreshes
	defer ka.Stop()
	l.stunContact(ctx) // the public address before the first REGISTER (nat_stun.go)
	for {
		l.setState(RegRegistering, "", false, false)
		exp, err := l.register(ctx, l.expiry())
		if ctx.Err() != nil {
			return registered || err == nil
		}
		var wait time.Duration
		if err != nil {
			registered = false
			l.setState(RegFailed, causeOf(err), false, true)
			wait = backoff
			backoff = min(backoff*2, regMaxRetry)
		} else {
			registered = true
			l.setState(RegRegistered, "", true, false)
			backoff = regMinRetry
			wait = time.Duration(float64(exp) * regRefreshShare * float64(time.Second))
			if wait < time.Second {
				wait = time.Second
			}
		}
		if !l.sleep(ctx, wait, ka.C) {
			return registered
		}
	}
}

// sleep waits d, sending keep-alives at each tick of ka meanwhile; false
// when ctx ended. With a STUN server each keep-alive also asks for the
// public address: a new one ends the wait, so it is registered at once.
func (l *line) sleep(ctx context.Context, d time.Duration, ka <-chan time.Time) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	kick := l.kicks()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
			return true
		case <-kick: // new credentials: register now (recredential.go)
			return true
		case <-ka:
			l.keepAlive()
			if l.stunContact(ctx) {
				return true
			}
		}
	}
}

// keepAlive sends a double CRLF (RFC 5626 3.5.1): on TCP/TLS over the open
// connection, on UDP from the listening socket, so NAT bindings stay.
func (l *line) keepAlive() {
	st := l.p.stack
	host, port := serverAddr(l.acc, true)
	if port == 0 {
		port = defaultPort(l.acc.Transport)
	}
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	if l.acc.Transport == "udp" {
		if ua, err := net.ResolveUDPAddr("udp4", addr); err == nil {
			_, _ = st.udpConn.WriteTo([]byte("\r\n\r\n"), ua)
		}
		return
	}
	ips, err := net.DefaultResolver.LookupHost(context.Background(), host)
	if err != nil || len(ips) == 0 {
		return
	}
	c, err := st.ua.TransportLayer().GetConnection(l.acc.Transport, net.JoinHostPort(ips[0], strconv.Itoa(port)))
	if err != nil {
		return
	}
	defer c.TryClose()
	if w, ok := c.(io.Writer); ok {
		_, _ = w.Write([]byte("\r\n\r\n"))
	}
}

func (l *line) expiry() int {
	e := 300
	if l.acc.ExpiryS > 0 {
		e = l.acc.ExpiryS
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return max(e, l.minExpires)
}

func (l *line) setState(state, cause string, ok, failed bool) {
	l.mu.Lock()
	same := l.state == state && l.cause == cause
	l.state, l.cause = state, cause
	l.mu.Unlock()
	if same && !ok && !failed {
		return
	}
	l.p.bus.Publish(Event{Kind: EventRegistration, Registration: Registration{
		AccountID: l.acc.ID, State: state, Cause: cause, OK: ok, Failed: failed}})
}

// regError is a registration the registrar refused.
type regError struct{ status string }

func (e regError) Error() string { return e.status }

func causeOf(err error) string {
	var re regError
	switch {
	case errors.As(err, &re):
		return re.status
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, sip.ErrTransactionTimeout):
		return "timeout"
	}
	return "network error: " + strings.TrimPrefix(err.Error(), ErrRegistration.Error()+": ")
}

// register sends one REGISTER (digest on 401/407) and gives the granted
// expiry. expires 0 unregisters.
func (l *line) register(ctx context.Context, expires int) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, regTimeout)
	defer cancel()
	for attempt := 0; attempt < 3; attempt++ {
		res, req, err := l.sendRegister(ctx, expires)
		if err != nil {
			return 0, fmt.Errorf("%w: %w", ErrRegistration, err)
		}
		if res.StatusCode == 401 || res.StatusCode == 407 {
			res, err = doDigest(ctx, l.client, req, res, sipgo.DigestAuth{Username: l.authUser(), Password: l.password()})
			l.mu.Lock()
			l.cseq = req.CSeq().SeqNo + 1
			l.mu.Unlock()
			if err != nil {
				return 0, fmt.Errorf("%w: %w", ErrRegistration, err)
			}
		}
		if res.StatusCode == 423 && expires > 0 {
			// Interval Too Brief: ask again with the registrar's minimum (RFC 3261 10.2.8).
			if h := res.GetHeader("Min-Expires"); h != nil {
				if n, err := strconv.Atoi(strings.TrimSpace(h.Value())); err == nil && n > expires {
					expires = n
					l.mu.Lock()
					l.minExpires = n
					l.mu.Unlock()
					continue
				}
			}
		}
		if !res.IsSuccess() {
			return 0, fmt.Errorf("%w: %w", ErrRegistration, regError{fmt.Sprintf("%d %s", res.StatusCode, res.Reason)})
		}
		if expires > 0 {
			// Calls from the registrar are calls from a server (callers.go).
			l.addServer(sourceAddr(res))
			l.resolveServers(ctx)
		}
		if expires > 0 && l.learnContact(res) {
			continue // NAT changed our address: register the one the registrar sees
		}
		return grantedExpiry(res, expires), nil
	}
	return expires, nil
}

func (l *line) sendRegister(ctx context.Context, expires int) (*sip.Response, *sip.Request, error) {
	host, port := registrarAddr(l.acc)
	ru := sip.Uri{Scheme: "sip", Host: host}
	if port != 0 && port != defaultPort(l.acc.Transport) {
		ru.Port = port
	}
	req := sip.NewRequest(sip.REGISTER, ru)
	a := aor(l.acc)
	from := &sip.FromHeader{Address: a, Params: sip.NewParams()}
	from.Params.Add("tag", sip.GenerateTagN(16))
	l.mu.Lock()
	cseq := l.cseq
	l.cseq++
	callID := sip.CallIDHeader(l.regID)
	l.mu.Unlock()
	contact := l.contactHeader()
	req.AppendHeader(from)
	req.AppendHeader(&sip.ToHeader{Address: a})
	req.AppendHeader(&callID)
	req.AppendHeader(&sip.CSeqHeader{SeqNo: cseq, MethodName: sip.REGISTER})
	req.AppendHeader(&contact)
	req.AppendHeader(sip.NewHeader("Expires", strconv.Itoa(expires)))
	l.prepare(req)
	res, err := doRequest(ctx, l.client, req)
	return res, req, err
}

// learnContact follows received/rport of our Via in the answer (RFC 3581 4):
// when the registrar saw another address than our Contact on UDP, the
// Contact becomes that address. It says whether it changed.
func (l *line) learnContact(res *sip.Response) bool {
	if l.acc.Transport != "udp" {
		return false
	}
	via := res.Via()
	if via == nil {
		return false
	}
	rec, _ := via.Params.Get("received")
	rp, _ := via.Params.Get("rport")
	port, _ := strconv.Atoi(rp)
	l.mu.Lock()
	defer l.mu.Unlock()
	changed := false
	if rec != "" && rec != l.contact.Address.Host {
		l.contact.Address.Host = rec
		changed = true
	}
	if port != 0 && port != l.contact.Address.Port {
		l.contact.Address.Port = port
		changed = true
	}
	return changed
}

func grantedExpiry(res *sip.Response, asked int) int {
	for _, h := range res.GetHeaders("Contact") {
		if c, ok := h.(*sip.ContactHeader); ok {
			if v, ok := c.Params.Get("expires"); ok {
				if n, err := strconv.Atoi(v); err == nil && n > 0 {
					return min(n, asked)
				}
			}
		}
	}
	if h := res.GetHeader("Expires"); h != nil {
		if n, err := strconv.Atoi(h.Value()); err == nil && n > 0 {
			return n
		}
	}
	return asked
}
