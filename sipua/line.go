package sipua

import (
	"errors"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync"

	"github.com/emiago/sipgo"
	"github.com/emiago/sipgo/sip"
	"github.com/google/uuid"

	"github.com/softphone/softphone/store"
)

// line is one account at run time: its sipgo client, the Contact it
// registers, and its registration state. The registration loop owns the
// fields under mu; calls read them through the accessors.
type line struct {
	p   *Phone
	acc store.Account

	client     *sipgo.Client
	localIP    string
	noListener string // the cause when the stack has no listener for this transport

	mu         sync.Mutex
	state      string
	cause      string
	contact    sip.ContactHeader // what we registered; learnt rport may change it
	regID      string            // Call-ID of our REGISTERs
	cseq       uint32
	minExpires int                // from a 423 Interval Too Brief
	stop       func(final string) // ends the registration loop, unregisters, sets final state
	done       chan struct{}
	kick       chan struct{} // Reregister wakes the loop's wait (recredential.go)

	servers     map[netip.Addr]bool // where the account's servers are, under mu (callers.go)
	contactUser string              // user part of our Contact (callers.go); set once in newLine
}

// serverAddr is where this account's requests go: the outbound proxy when
// set, else for REGISTER the registrar and for other requests the domain,
// each with the account port (RFC 3263 defaults when none).
func serverAddr(a store.Account, register bool) (host string, port int) {
	raw := a.OutboundProxy
	if raw == "" && register {
		raw = a.Registrar
	}
	if raw == "" {
		raw = a.Domain
	}
	return splitHostPort(raw, a.Port)
}

// registrarAddr is the host of the Request-URI of REGISTER (RFC 3261 10.2).
func registrarAddr(a store.Account) (host string, port int) {
	raw := a.Registrar
	if raw == "" {
		raw = a.Domain
	}
	return splitHostPort(raw, a.Port)
}

func splitHostPort(raw string, defPort int) (string, int) {
	raw = strings.TrimSpace(raw)
	for _, p := range []string{"sips:", "sip:"} {
		raw = strings.TrimPrefix(raw, p)
	}
	if i := strings.IndexAny(raw, ";?"); i >= 0 {
		raw = raw[:i]
	}
	if h, ps, err := net.SplitHostPort(raw); err == nil {
		if p, err := strconv.Atoi(ps); err == nil {
			return h, p
		}
	}
	return raw, defPort
}

func defaultPort(transport string) int {
	if transport == "tls" {
		return 5061
	}
	return 5060
}

// aor is the account's address of record, sip:user@domain (From and To).
func aor(a store.Account) sip.Uri {
	host, _ := splitHostPort(a.Domain, 0)
	return sip.Uri{Scheme: "sip", User: a.Username, Host: host}
}

// accountName is "<username>@<server>" (webhooks.md "account").
func accountName(a store.Account) string {
	host, _ := splitHostPort(a.Domain, 0)
	return a.Username + "@" + host
}

func newLine(p *Phone, a store.Account) (*line, error) {
	if a.Transport == "" {
		a.Transport = "udp"
	}
	host, port := serverAddr(a, true)
	if port == 0 {
		port = defaultPort(a.Transport)
	}
	st := p.stack
	l := &line{p: p, acc: a, state: RegUnregistered, regID: uuid.NewString(), cseq: 1, done: make(chan struct{})}
	close(l.done)
	l.contactUser = contactUser(a)
	l.addLiteralServers() // names are looked up when registering
	if st == nil {
		return l, nil
	}
	l.localIP = st.localIPFor(host, port)
	l.noListener = st.missing(a.Transport)
	c, err := st.client(a.Transport, l.localIP, p.log)
	if err != nil {
		return nil, err
	}
	l.client = c
	cu := sip.Uri{Scheme: "sip", User: l.contactUser, Host: l.localIP, Port: st.contactPort(a.Transport)}
	if a.Transport == "tcp" || a.Transport == "tls" {
		cu.UriParams = sip.NewParams()
		cu.UriParams.Add("transport", a.Transport)
	}
	l.contact = sip.ContactHeader{Address: cu}
	return l, nil
}

// contactHeader is the Contact this account puts in requests and answers.
func (l *line) contactHeader() sip.ContactHeader {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.contact
	c.Address = *l.contact.Address.Clone()
	return c
}

// dialogContact is the Contact of calls and subscriptions: the registered
// one (contactHeader, same address) with the account's user name instead of
// its unguessable user. That user lets a call in from any address with
// sip.accept_calls_from servers (callers.go), so only the registrar may
// learn it: a Contact in an INVITE or 200 reaches the far end (through a
// proxy that passes it, or directly), which could then ring the phone
// from anywhere for as long as the account exists. Requests inside a
// dialog are matched by Call-ID and tags, not by this user (RFC 3261
// 12.2.2).
func (l *line) dialogContact() sip.ContactHeader {
	c := l.contactHeader()
	c.Address.User = l.acc.Username
	return c
}

// dialogUA gives a sipgo dialog agent that uses this account's dialog
// Contact.
func (l *line) dialogUA() *sipgo.DialogUA {
	return &sipgo.DialogUA{Client: l.client, ContactHDR: l.dialogContact()}
}

func (l *line) status() AccountStatus {
	l.mu.Lock()
	defer l.mu.Unlock()
	return AccountStatus{Account: l.acc, State: l.state, Cause: l.cause}
}

// prepare sets what every request outside a dialog needs to leave toward
// the account's server: transport, destination, and the outbound proxy's
// Route (RFC 3261 8.1.2).
func (l *line) prepare(req *sip.Request) {
	req.SetTransport(sipTransport(l.acc.Transport))
	host, port := serverAddr(l.acc, req.Method == sip.REGISTER)
	if port == 0 {
		port = defaultPort(l.acc.Transport)
	}
	if l.acc.OutboundProxy != "" {
		ru := sip.Uri{Scheme: "sip", Host: host, Port: port, UriParams: sip.NewParams()}
		ru.UriParams.Add("lr", "")
		if l.acc.Transport != "udp" {
			ru.UriParams.Add("transport", l.acc.Transport)
		}
		req.AppendHeader(&sip.RouteHeader{Address: ru})
	}
	req.SetDestination(net.JoinHostPort(host, strconv.Itoa(port)))
}

// password reads the account's password from the keyring; none is "".
func (l *line) password() string {
	if l.p.secrets == nil {
		return ""
	}
	pw, err := l.p.secrets.Get("account:" + l.acc.ID)
	if err != nil {
		if !errors.Is(err, store.ErrNoSecret) {
			l.p.log.Warn("account password unreadable", "account", l.acc.ID, "error", err)
		}
		return ""
	}
	return pw
}

func (l *line) authUser() string {
	if l.acc.AuthUsername != "" {
		return l.acc.AuthUsername
	}
	return l.acc.Username
}
