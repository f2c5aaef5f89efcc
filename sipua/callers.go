package sipua

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"net"
	"net/netip"
	"sync/atomic"
	"time"

	"github.com/emiago/sipgo/sip"

	"github.com/softphone/softphone/store"
)

// Who may ring the phone (issue 12, sip.accept_calls_from). With "servers"
// (the default) a new INVITE is taken only
//   - from an address the phone's accounts use: their registrar, outbound
//     proxy and domain as resolved, and the address that answered their
//     REGISTER; or
//   - addressed to the Contact an account registered, whose user part is
//     derived from the account's id (a UUID that never goes on the wire):
//     a provider whose calls come from other edge addresses still reaches
//     the phone, a scanner guessing "100@" does not.
// "anyone" lets phones call each other without a PBX. Refused INVITEs get
// 403, are counted (RefusedRequests, sip_requests_refused_total) and never
// become calls, so auto-answer never answers one.

// resolveTimeout bounds the lookup of an account's server names.
const resolveTimeout = 3 * time.Second

// contactSalt is mixed into the Contact user of an account without an id
// (tests build some), so it is not guessable either.
var contactSalt = func() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}()

// contactUser is the user part of the Contact an account registers: stable
// across restarts (an old binding at the registrar keeps pointing at a user
// the phone still answers to) and unguessable from the network.
func contactUser(a store.Account) string {
	seed := a.ID
	if seed == "" {
		seed = contactSalt
	}
	sum := sha256.Sum256([]byte("softphone contact\x00" + seed + "\x00" + a.Username + "\x00" + a.Domain))
	return "sp" + hex.EncodeToString(sum[:12])
}

// refusedCounter counts requests refused by policy (403 to strangers).
type refusedCounter struct{ n atomic.Uint64 }

// RefusedRequests is the number of SIP requests refused because of who
// sent them (sip_requests_refused_total).
func (p *Phone) RefusedRequests() uint64 { return p.refused.n.Load() }

// mayCall says whether a new INVITE may ring the phone.
func (p *Phone) mayCall(req *sip.Request) bool {
	if p.settingsNow().SIP.AcceptCallsFrom == store.AcceptFromAnyone {
		return true
	}
	src := sourceAddr(req)
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, id := range p.order {
		l := p.lines[id]
		if !l.acc.Enabled {
			continue
		}
		if req.Recipient.User != "" && req.Recipient.User == l.contactUser {
			return true
		}
		if src.IsValid() && l.isServer(src) {
			return true
		}
	}
	return false
}

// throughServers says whether m, a request of the far end in call c, came
// through the account's servers: from one of their addresses, or from the
// address that delivered the call to the Contact the account registered
// (whose user only the registrar learns, line.go dialogContact): a
// provider's edge, whose calls come from addresses other than its
// registrar's. Only such requests may have the phone act on its own (a
// REFER's call, Call-Info answer-after).
func (c *call) throughServers(m sip.Message) bool {
	if c.line.fromServer(m) {
		return true
	}
	ip := sourceAddr(m)
	return ip.IsValid() && ip == c.edge
}

// isServerAddr says whether ip is a server of any enabled account.
func (p *Phone) isServerAddr(ip netip.Addr) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, id := range p.order {
		if l := p.lines[id]; l.acc.Enabled && l.isServer(ip) {
			return true
		}
	}
	return false
}

// sourceAddr is the IP a message came from ("ip:port" in sipgo's Source).
func sourceAddr(m sip.Message) netip.Addr {
	ap, err := netip.ParseAddrPort(m.Source())
	if err != nil {
		return netip.Addr{}
	}
	return ap.Addr().Unmap()
}

// isServer says whether ip is one of the account's servers. The caller
// holds p.mu; the set has its own lock (l.mu).
func (l *line) isServer(ip netip.Addr) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.servers[ip]
}

// addServer adds an address the account's server was seen at.
func (l *line) addServer(ip netip.Addr) {
	if !ip.IsValid() {
		return
	}
	l.mu.Lock()
	if l.servers == nil {
		l.servers = map[netip.Addr]bool{}
	}
	l.servers[ip.Unmap()] = true
	l.mu.Unlock()
}

// serverHosts are the names (or addresses) of the account's servers.
func serverHosts(a store.Account) []string {
	var out []string
	for _, raw := range []string{a.OutboundProxy, a.Registrar, a.Domain} {
		if h, _ := splitHostPort(raw, 0); h != "" {
			out = append(out, h)
		}
	}
	return out
}

// addLiteralServers adds the servers named by address: at once, without
// asking DNS (newLine runs under the phone's lock).
func (l *line) addLiteralServers() {
	for _, h := range serverHosts(l.acc) {
		if ip, err := netip.ParseAddr(h); err == nil {
			l.addServer(ip)
		}
	}
}

// resolveServers looks the account's server names up and adds their
// addresses. A name that does not resolve adds nothing (its registrations
// fail anyway).
func (l *line) resolveServers(ctx context.Context) {
	for _, h := range serverHosts(l.acc) {
		if _, err := netip.ParseAddr(h); err == nil {
			continue
		}
		rctx, cancel := context.WithTimeout(ctx, resolveTimeout)
		ips, err := net.DefaultResolver.LookupNetIP(rctx, "ip", h)
		cancel()
		if err != nil {
			continue
		}
		for _, ip := range ips {
			l.addServer(ip)
		}
	}
}

// refuse answers an INVITE from a stranger: 403, counted, logged once per
// request at debug level (scanners knock all day).
func (p *Phone) refuse(req *sip.Request, tx sip.ServerTransaction) {
	p.refused.n.Add(1)
	p.log.Debug(req.Method.String()+" refused: not from the accounts' servers (sip.accept_calls_from)", "source", req.Source(),
		"to", req.Recipient.String())
	_ = tx.Respond(sip.NewResponseFromRequest(req, 403, "Forbidden", nil))
	// Answered statelessly (RFC 3261 8.2.7): the transaction is let go
	// at once instead of resending the 403 over UDP until an ACK or for
	// 32 s. A flood of INVITEs from strangers (or from forged sources)
	// held about 4 KiB each for those 32 s and had each answered up to
	// ten times toward the address it named.
	tx.Terminate()
}
