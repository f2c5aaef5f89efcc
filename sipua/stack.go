package sipua

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/emiago/sipgo"
)

// stack is the running SIP machinery: one sipgo user agent, its server
// handlers, and the UDP and TCP listeners of sip.listen. TLS is outbound
// only: requests from the PBX come back over the connection we opened.
type stack struct {
	ua       *sipgo.UserAgent
	srv      *sipgo.Server
	udpConn  net.PacketConn
	tcpLn    net.Listener
	udpPort  int
	tcpPort  int
	listenIP net.IP // unspecified when listening on all addresses
	cas      *caPool
	udpAddr  string    // the UDP listener's address, for the SIP trace
	trace    *sipTrace // where the messages through this stack are kept
	listens  []ListenState

	guard *connGuard // bounds and times inbound TCP/TLS connections (limits.go)

	tlsLn   net.Listener // sip.tls_listen (stack_tls.go); nil when off
	tlsPort int

	stun *stunConn // udpConn with STUN answers taken off (nat_stun.go); nil without UDP
}

// caPool verifies TLS servers against the system roots plus the CA files of
// the accounts (settings accounts[].ca_file). It can change while the stack
// runs, so verification is done by hand in VerifyConnection. The pool is
// built at the first verification, not at the start: the system roots
// parsed are about 0.5 MiB of heap that a phone without a TLS account never
// needs (issue 20, idle memory).
type caPool struct {
	mu    sync.Mutex
	files []string
	pool  *x509.CertPool // nil until needed after each set
}

// set takes the CA files, reading each once to report the ones that cannot
// be used.
func (c *caPool) set(files []string) error {
	var errs []error
	seen := map[string]bool{}
	var keep []string
	for _, f := range files {
		if f == "" || seen[f] {
			continue
		}
		seen[f] = true
		keep = append(keep, f)
		pem, err := os.ReadFile(f)
		if err != nil {
			errs = append(errs, fmt.Errorf("ca_file %s: %w", f, err))
			continue
		}
		if !x509.NewCertPool().AppendCertsFromPEM(pem) {
			errs = append(errs, fmt.Errorf("ca_file %s: no certificate in it", f))
		}
	}
	c.mu.Lock()
	c.files, c.pool = keep, nil
	c.mu.Unlock()
	return errors.Join(errs...)
}

// roots is the pool to verify against, built when first asked after a set.
func (c *caPool) roots() *x509.CertPool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pool != nil {
		return c.pool
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	for _, f := range c.files {
		if pem, err := os.ReadFile(f); err == nil { // a bad file was reported by set
			pool.AppendCertsFromPEM(pem)
		}
	}
	c.pool = pool
	return pool
}

func (c *caPool) verify(cs tls.ConnectionState) error {
	pool := c.roots()
	if len(cs.PeerCertificates) == 0 {
		return errors.New("tls: server sent no certificate")
	}
	opts := x509.VerifyOptions{Roots: pool, DNSName: cs.ServerName, Intermediates: x509.NewCertPool()}
	for _, ic := range cs.PeerCertificates[1:] {
		opts.Intermediates.AddCert(ic)
	}
	_, err := cs.PeerCertificates[0].Verify(opts)
	return err
}

func startStack(ctx context.Context, listen, product string, log *slog.Logger, trace *sipTrace) (*stack, error) {
	st := &stack{cas: &caPool{}, trace: trace, guard: newConnGuard(log)}
	_ = st.cas.set(nil)
	tlsConf := &tls.Config{
		MinVersion: tls.VersionTLS12,
		// Verified in VerifyConnection against a pool that follows settings.
		InsecureSkipVerify: true, //nolint:gosec
		VerifyConnection:   st.cas.verify,
	}
	sipgoDefaultLogger(log)
	ua, err := sipgo.NewUA(sipgo.WithUserAgent(product), sipgo.WithUserAgenTLSConfig(tlsConf),
		sipgo.WithUserAgentTransportLayerOptions(transportLogger(log)), transactionLogger(log))
	if err != nil {
		return nil, fmt.Errorf("sip user agent: %w", err)
	}
	st.ua = ua
	srv, err := sipgo.NewServer(ua, sipgo.WithServerLogger(log))
	if err != nil {
		ua.Close()
		return nil, fmt.Errorf("sip server: %w", err)
	}
	st.srv = srv
	host, portS, err := net.SplitHostPort(listen)
	if err != nil {
		host, portS = listen, "0"
	}
	port, _ := strconv.Atoi(portS)
	if host == "" {
		host = "0.0.0.0"
	}
	st.listenIP = net.ParseIP(host)
	want := net.JoinHostPort(host, strconv.Itoa(port))
	// A taken port moves the listener to another free port; a listener
	// that cannot open at all leaves its transport without one (listen.go).
	uc, us := listenUDP(ctx, want)
	tl, ts := listenTCP(ctx, want, portOf(us.Addr))
	st.listens = []ListenState{us, ts}
	for _, s := range st.listens {
		logListen(log, s)
	}
	if us.Open() {
		st.stun = newStunConn(uc)
		st.udpConn = st.stun
		st.udpPort = uc.LocalAddr().(*net.UDPAddr).Port
		st.udpAddr = uc.LocalAddr().String()
	}
	if ts.Open() {
		st.tcpLn = st.guard.listener(tl)
		st.tcpPort = tl.Addr().(*net.TCPAddr).Port
	}
	ua.TransportLayer().OnMessage(st.guard.onMessage)
	traceRegister(st)
	return st, nil
}

// serve runs the listeners; handlers must be set before.
func (st *stack) serve() {
	if st.tcpLn != nil {
		go func() { _ = st.srv.ServeTCP(st.tcpLn) }()
	}
	st.serveTLS()
	if st.udpConn == nil {
		return
	}
	go func() { _ = st.srv.ServeUDP(st.udpConn) }()
	// UDP requests leave from the listener, found in sipgo's connection
	// pool: wait until ServeUDP has put it there.
	addr := st.udpConn.LocalAddr().String()
	for i := 0; i < 500; i++ {
		if c, err := st.ua.TransportLayer().GetConnection("udp", addr); err == nil {
			_, _ = c.TryClose()
			return
		}
		time.Sleep(time.Millisecond)
	}
}

func (st *stack) close() {
	st.closeListeners()
	st.ua.Close()
}

// closeListeners stops taking messages; the user agent's transactions go
// on until it is closed.
func (st *stack) closeListeners() {
	traceUnregister(st)
	if st.udpConn != nil {
		st.udpConn.Close()
	}
	if st.tcpLn != nil {
		st.tcpLn.Close()
	}
	st.closeTLS()
}

// localIPFor gives the address of this host that routes to host (the listen
// address when it is a concrete one). It sends nothing: a UDP "connect" only
// asks the kernel for the route.
func (st *stack) localIPFor(host string, port int) string {
	if st.listenIP != nil && !st.listenIP.IsUnspecified() {
		return st.listenIP.String()
	}
	if port == 0 {
		port = 5060
	}
	c, err := net.Dial("udp4", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return "127.0.0.1"
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).IP.String()
}

// client makes a sipgo client for one account: Via sent-by is the local
// address toward the PBX, with rport (RFC 3581); UDP requests leave from the
// listening socket so answers and new requests come back to it.
func (st *stack) client(transport, localIP string, log *slog.Logger) (*sipgo.Client, error) {
	opts := []sipgo.ClientOption{sipgo.WithClientHostname(localIP), sipgo.WithClientNAT(), sipgo.WithClientLogger(log)}
	switch transport {
	case "udp", "":
		if st.udpConn == nil {
			break // no listener (its state says why): the line does not register
		}
		opts = append(opts, sipgo.WithClientPort(st.udpPort),
			sipgo.WithClientConnectionAddr(st.udpConn.LocalAddr().String()))
	case "tcp":
		opts = append(opts, sipgo.WithClientPort(st.tcpPort))
	}
	c, err := sipgo.NewClient(st.ua, opts...)
	if err == nil {
		// Too large for UDP: TCP (udp_size.go); an INVITE's transaction
		// to its call (fork.go).
		c.TxRequester = tcpFallback{st: st, toTCP: (transport == "udp" || transport == "") && st.udpConn != nil}
	}
	return c, err
}

// contactPort is the port that answers on a transport.
func (st *stack) contactPort(transport string) int {
	if transport == "tcp" {
		return st.tcpPort
	}
	if transport == "tls" {
		return st.tlsPort // 0 without a TLS listener: the PBX answers on our connection
	}
	return st.udpPort
}

// sipTransport maps settings transport names to sipgo's.
func sipTransport(t string) string {
	switch t {
	case "tcp":
		return "TCP"
	case "tls":
		return "TLS"
	}
	return "UDP"
}
