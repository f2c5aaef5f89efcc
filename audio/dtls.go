package audio

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pion/dtls/v3"
	"github.com/pion/dtls/v3/pkg/crypto/selfsign"
	"github.com/pion/srtp/v3"
)

// dtlsHandshakeTimeout bounds a DTLS-SRTP handshake; the media stays
// silent (never clear) until it ends.
const dtlsHandshakeTimeout = 15 * time.Second

// The process's DTLS certificate: one self-signed key for every call, its
// fingerprint in each SDP (RFC 5763 5: the certificate may be reused).
var dtlsID struct {
	once sync.Once
	cert tls.Certificate
	fp   string
	err  error
}

// DTLSFingerprint is the a=fingerprint value of the phone's DTLS
// certificate: "sha-256 AB:CD:..." (RFC 8122 5).
func DTLSFingerprint() (string, error) {
	dtlsID.once.Do(func() {
		dtlsID.cert, dtlsID.err = selfsign.GenerateSelfSigned()
		if dtlsID.err == nil {
			dtlsID.fp = "sha-256 " + fingerprintOf(dtlsID.cert.Certificate[0])
		}
	})
	return dtlsID.fp, dtlsID.err
}

func fingerprintOf(der []byte) string {
	sum := sha256.Sum256(der)
	hex := make([]string, len(sum))
	for i, b := range sum {
		hex[i] = fmt.Sprintf("%02X", b)
	}
	return strings.Join(hex, ":")
}

// DTLSParams start a DTLS-SRTP handshake (RFC 5763, RFC 5764) on a
// session's RTP port.
type DTLSParams struct {
	Client      bool   // we are the DTLS client (our a=setup is active)
	Fingerprint string // the far end's a=fingerprint, "sha-256 AB:CD:..."
	// TLSID is the far end's a=tls-id (RFC 8842), "" when it sent none:
	// a new value names a new association even with the same certificate.
	TLSID string
	// Restart makes a new association even when the far end's SDP names
	// the one there is: its handshake failed (during early media, where
	// no call can be hung up yet, and the answer says the same).
	Restart bool
	OnDone  func(err error)
}

// dtlsComp carries DTLS records between the session's RTP socket and
// pion/dtls: readLoop feeds what it receives (first byte 20-63, RFC 7983),
// writes go to the far end's current address.
type dtlsComp struct {
	s      *Session
	rtcp   bool        // the RTCP port's own association (RFC 5764 4.1: no rtcp-mux)
	client bool        // our role in it
	fp     string      // the far end's certificate fingerprint it checks (hex)
	tlsID  string      // the far end's a=tls-id it was made for ("" none)
	gone   atomic.Bool // replaced by a new association: sends nothing more
	conn   *dtls.Conn  // once made
	in     chan []byte
	closed chan struct{}
	once   sync.Once
	mu     sync.Mutex
	dl     time.Time
	dlSet  chan struct{} // a new read deadline: a blocked ReadFrom looks again

	// On the RTP component: the RTCP port's association and the SRTCP
	// keys it gave (nil until its handshake is done).
	ctrl  *dtlsComp
	srtcp atomic.Pointer[srtpState]
}

func (d *dtlsComp) feed(b []byte) {
	select {
	case d.in <- append([]byte(nil), b...):
	default: // a flood: DTLS retransmits what matters
	}
}

// ReadFrom waits for a record, the close, or the read deadline, which may
// be set while it waits: pion ends a failed or timed-out handshake by
// setting a deadline in the past and then waits for its read loop, so a
// read that did not look again held the handshake (and its OnDone) for
// ever.
func (d *dtlsComp) ReadFrom(b []byte) (int, net.Addr, error) {
	for {
		d.mu.Lock()
		dl := d.dl
		d.mu.Unlock()
		var timeout <-chan time.Time
		var t *time.Timer
		if !dl.IsZero() {
			t = time.NewTimer(time.Until(dl))
			timeout = t.C
		}
		select {
		case p := <-d.in:
			stopTimer(t)
			return copy(b, p), d.remote(), nil
		case <-d.closed:
			stopTimer(t)
			return 0, nil, net.ErrClosed
		case <-timeout:
			return 0, nil, errDTLSTimeout
		case <-d.dlSet:
			stopTimer(t)
		}
	}
}

func stopTimer(t *time.Timer) {
	if t != nil {
		t.Stop()
	}
}

// errDTLSTimeout is a read deadline passing (a net.Error that times out).
var errDTLSTimeout = timeoutError{}

type timeoutError struct{}

func (timeoutError) Error() string   { return "dtls: read deadline" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

func (d *dtlsComp) remote() net.Addr {
	d.s.mu.Lock()
	defer d.s.mu.Unlock()
	if d.rtcp {
		if d.s.remoteCtrl == nil {
			return &net.UDPAddr{}
		}
		return d.s.remoteCtrl
	}
	return net.UDPAddrFromAddrPort(d.s.dtlsTo())
}

func (d *dtlsComp) WriteTo(b []byte, _ net.Addr) (int, error) {
	if d.gone.Load() {
		return len(b), nil // the far end's new association must not get the old one's records
	}
	d.s.mu.Lock()
	to, ctrl := d.s.dtlsTo(), d.s.remoteCtrl
	d.s.mu.Unlock()
	if d.rtcp {
		if ctrl == nil || unspecified(ctrl.AddrPort().Addr()) {
			return len(b), nil // (0.0.0.0 is this machine to the kernel: errUnspecified)
		}
		return d.s.ctrl.WriteToUDP(b, ctrl)
	}
	return d.s.conn.WriteToAddrPort(b, to)
}

func (d *dtlsComp) Close() error {
	d.once.Do(func() { close(d.closed) })
	return nil
}

func (d *dtlsComp) LocalAddr() net.Addr {
	if d.rtcp {
		return d.s.ctrl.LocalAddr()
	}
	return d.s.conn.LocalAddr()
}

func (d *dtlsComp) SetDeadline(t time.Time) error { return d.SetReadDeadline(t) }

func (d *dtlsComp) SetReadDeadline(t time.Time) error {
	d.mu.Lock()
	d.dl = t
	d.mu.Unlock()
	select {
	case d.dlSet <- struct{}{}:
	default: // a look is already due
	}
	return nil
}

func (d *dtlsComp) SetWriteDeadline(time.Time) error { return nil }

// StartDTLS runs a DTLS-SRTP handshake with the far end (after Start: it
// needs the far end's address). Until it succeeds nothing is sent and
// nothing received is played: the call is encrypted or silent, never
// clear. On success the SRTP keys come from the DTLS exporter (RFC 5764
// 4.2); the far end's certificate must match its SDP fingerprint (RFC 5763
// 5). A session already secured by DTLS keeps its association when the
// fingerprint and the roles are the same (RFC 5763 6.7.1). A new
// fingerprint, a changed role or a new a=tls-id (a re-INVITE after the far
// end restarted its DTLS) is a new association (RFC 5763 5, RFC 8842):
// the old one is dropped with its SRTP keys, the call is silent until the
// new handshake gives new ones.
//
// RTCP goes on its own port (no rtcp-mux), which is a flow of its own:
// RFC 5764 4.1 protects it with a DTLS association of its own, made the
// same way (same certificate, fingerprint and roles) beside the RTP one;
// its keys protect SRTCP (RFC 3711 3.4). Until it is up no RTCP is sent
// or read; its failure leaves the call as it is (RTCP only, logged).
func (s *Session) StartDTLS(p DTLSParams) error {
	if _, err := DTLSFingerprint(); err != nil {
		return fmt.Errorf("%w: %v", ErrSRTPKeys, err)
	}
	algo, want, ok := strings.Cut(strings.TrimSpace(p.Fingerprint), " ")
	if !ok || !strings.EqualFold(algo, "sha-256") {
		return fmt.Errorf("%w: fingerprint %q (sha-256 is needed)", ErrSRTPKeys, algo)
	}
	want = strings.ToUpper(strings.TrimSpace(want))
	d := &dtlsComp{s: s, client: p.Client, fp: want, tlsID: p.TLSID, in: make(chan []byte, 64), closed: make(chan struct{}), dlSet: make(chan struct{}, 1)}
	d.ctrl = &dtlsComp{s: s, rtcp: true, client: p.Client, fp: want, tlsID: p.TLSID, in: make(chan []byte, 64), closed: make(chan struct{}), dlSet: make(chan struct{}, 1)}
	s.mu.Lock()
	old := s.dtls.Load()
	// A tls-id only tells when both SDPs have one: a far end that starts
	// (or stops) sending it is not taken for a new association.
	sameID := old == nil || old.tlsID == "" || p.TLSID == "" || old.tlsID == p.TLSID
	if old != nil && !p.Restart && old.client == p.Client && old.fp == want && sameID {
		if old.tlsID == "" {
			old.tlsID = p.TLSID // from now on it tells
		}
		s.mu.Unlock()
		return nil
	}
	s.srtpWanted.Store(true)
	s.dtls.Store(d)
	if old != nil {
		// The old association's keys end with it: nothing goes out or is
		// played with them (srtpOut runs under s.mu) until the new ones.
		s.srtp.Store(nil)
		// The far end that restarted may come from another port of its
		// NAT: as at the call's start, its DTLS is taken from the SIP
		// peer's IP and answered where it came from, until its first
		// SRTP packet that authenticates latches the stream again
		// (session_source.go). Until then ours go where they went.
		s.latched, s.dtlsFrom = false, netip.AddrPort{}
	}
	s.mu.Unlock()
	switch {
	case old != nil && p.Restart:
		s.eng.log.Info("DTLS-SRTP handshake again: the last one failed", "call", s.cfg.CallID)
	case old != nil:
		s.eng.log.Info("far end's DTLS changed (fingerprint, role or tls-id): new DTLS-SRTP handshake", "call", s.cfg.CallID)
	}
	if old != nil {
		old.retire()
	}
	opts := []dtls.Option{
		dtls.WithCertificates(dtlsID.cert),
		dtls.WithSRTPProtectionProfiles(dtls.SRTP_AEAD_AES_128_GCM, dtls.SRTP_AES128_CM_HMAC_SHA1_80, dtls.SRTP_AES128_CM_HMAC_SHA1_32),
		dtls.WithExtendedMasterSecret(dtls.RequestExtendedMasterSecret),
		dtls.WithInsecureSkipVerify(true), // self-signed: checked against the SDP fingerprint below
		dtls.WithVerifyPeerCertificate(func(raw [][]byte, _ [][]*x509.Certificate) error {
			if len(raw) == 0 || fingerprintOf(raw[0]) != want {
				return errFingerprint
			}
			return nil
		}),
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		keys, err := s.handshake(d, opts, p.Client)
		if err == nil {
			// Under s.mu with the check, so a replaced association's late
			// keys never overwrite (or follow) the new one's.
			s.mu.Lock()
			if s.dtls.Load() == d {
				err = s.SetSRTP(keys)
			} else {
				err = errDTLSReplaced
			}
			s.mu.Unlock()
		}
		if d.gone.Load() {
			s.eng.log.Info("replaced DTLS-SRTP handshake ended", "call", s.cfg.CallID, "error", err)
		} else if err != nil {
			s.eng.log.Warn("DTLS-SRTP handshake failed: the call stays silent", "call", s.cfg.CallID, "error", err)
		}
		if p.OnDone != nil {
			p.OnDone(err)
		}
	}()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		keys, err := s.handshake(d.ctrl, opts, p.Client)
		var st *srtpState
		if err == nil {
			st, err = newSRTPState(*keys)
		}
		if err != nil || d.ctrl.gone.Load() {
			if d.ctrl.gone.Load() {
				return
			}
			s.eng.log.Info("DTLS-SRTP on the RTCP port failed: no RTCP in this call", "call", s.cfg.CallID, "error", err)
			return
		}
		d.srtcp.Store(st)
	}()
	return nil
}

var (
	errFingerprint  = errors.New("dtls: the certificate does not match the SDP fingerprint")
	errDTLSReplaced = errors.New("dtls: the association was replaced by a new one")
)

// retire ends an association replaced by a new one, on both ports,
// without a word to the far end (its new association must not see the
// old one's close_notify).
func (d *dtlsComp) retire() {
	for _, c := range []*dtlsComp{d, d.ctrl} {
		c.gone.Store(true)
		_ = c.Close()
		c.mu.Lock()
		conn := c.conn
		c.mu.Unlock()
		if conn != nil {
			_ = conn.Close()
		}
	}
}

func (s *Session) handshake(d *dtlsComp, opts []dtls.Option, client bool) (*SRTPKeys, error) {
	ctx, cancel := context.WithTimeout(context.Background(), dtlsHandshakeTimeout)
	defer cancel()
	go func() {
		select {
		case <-s.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	var (
		conn *dtls.Conn
		err  error
	)
	if client {
		co := make([]dtls.ClientOption, 0, len(opts))
		for _, o := range opts {
			co = append(co, o)
		}
		conn, err = dtls.ClientWithOptions(d, d.remote(), co...)
	} else {
		so := make([]dtls.ServerOption, 0, len(opts)+1)
		for _, o := range opts {
			so = append(so, o)
		}
		// The client's certificate is what its fingerprint names.
		conn, err = dtls.ServerWithOptions(d, d.remote(), append(so, dtls.WithClientAuth(dtls.RequireAnyClientCert))...)
	}
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	d.conn = conn
	d.mu.Unlock()
	if d.gone.Load() { // replaced before it had a conn to close (retire)
		_ = conn.Close()
		return nil, errDTLSReplaced
	}
	if err := conn.HandshakeContext(ctx); err != nil {
		_ = conn.Close()
		return nil, err
	}
	prof, ok := conn.SelectedSRTPProtectionProfile()
	if !ok {
		return nil, errors.New("dtls: no SRTP profile agreed (use_srtp)")
	}
	state, ok := conn.ConnectionState()
	if !ok {
		return nil, errors.New("dtls: no connection state")
	}
	sc := srtp.Config{Profile: srtp.ProtectionProfile(prof)}
	if err := sc.ExtractSessionKeysFromDTLS(&state, client); err != nil {
		return nil, err
	}
	return &SRTPKeys{Profile: SRTPProfile(prof), LocalKey: sc.Keys.LocalMasterKey, LocalSalt: sc.Keys.LocalMasterSalt,
		RemoteKey: sc.Keys.RemoteMasterKey, RemoteSalt: sc.Keys.RemoteMasterSalt}, nil
}

// Behind a NAT (the SDP names an address the far end cannot be reached
// at) the far end's DTLS comes from the SIP peer's IP. The stream does not
// latch on a record, which anyone who forges that IP can send (RFC 7362
// 5): until the far end's first SRTP packet authenticates and latches it,
// the handshake's answers and our packets go to where the last record
// came from, so a forged one costs a retransmission, not the call.

// dtlsSource notes where a DTLS record from the SIP peer's IP came from,
// while the stream has not latched.
func (s *Session) dtlsSource(from netip.AddrPort) {
	if s.dtls.Load() == nil {
		return // no DTLS in this call
	}
	s.mu.Lock()
	if !s.latched {
		s.dtlsFrom = netip.AddrPortFrom(from.Addr().Unmap(), from.Port())
	}
	s.mu.Unlock()
}

// dtlsTo is where the RTP port's packets go; s.mu is held.
func (s *Session) dtlsTo() netip.AddrPort {
	if !s.latched && s.dtlsFrom.IsValid() {
		return s.dtlsFrom
	}
	return s.remoteAP
}

// dtlsIn hands a DTLS record to the handshake; false when there is none.
func (s *Session) dtlsIn(b []byte) bool {
	if len(b) == 0 || b[0] < 20 || b[0] > 63 {
		return false
	}
	if d := s.dtls.Load(); d != nil {
		d.feed(b)
	}
	return true
}

// closeDTLS ends the associations (close_notify) before the sockets close.
func (s *Session) closeDTLS() {
	d := s.dtls.Load()
	if d == nil {
		return
	}
	for _, c := range []*dtlsComp{d, d.ctrl} {
		c.mu.Lock()
		conn := c.conn
		c.mu.Unlock()
		if conn != nil {
			_ = conn.Close()
		}
		_ = c.Close()
	}
}
