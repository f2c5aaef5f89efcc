package audio

import (
	"context"
	"crypto/tls"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pion/dtls/v3"
	"github.com/pion/dtls/v3/pkg/crypto/selfsign"
	"github.com/pion/rtp"
	"github.com/pion/srtp/v3"
)

// TestDTLSFarEndRestartNewAssociation: the far end (pion DTLS as the
// server, a certificate of its own, pion SRTP) restarts its DTLS mid-call
// and its re-INVITE names a new a=fingerprint, which is a new DTLS
// association (RFC 5763 5, RFC 8842). The session must make a new
// handshake and new SRTP contexts: each side hears the other's tone, by
// content, before and after. Before, StartDTLS kept the old association
// and the call stayed silent both ways.
func TestDTLSFarEndRestartNewAssociation(t *testing.T) {
	s, err := newTestEngine(t).NewSession(SessionConfig{CallID: "restart"})
	mustOK(t, err)
	defer s.Close()
	var heard collector
	s.setTap(heard.add)
	far := newDTLSFar(t)
	defer far.stop()

	// setup runs what sipua does for an SDP with the far end's DTLS:
	// WaitForSRTP, Start, StartDTLS; then awaits both handshakes.
	setup := func(what, fp, tlsID string) {
		t.Helper()
		done := make(chan error, 1)
		s.WaitForSRTP()
		mustOK(t, s.Start(far.addr(), CodecPCMU, 101))
		mustOK(t, s.StartDTLS(DTLSParams{Client: true, Fingerprint: fp, TLSID: tlsID, OnDone: func(err error) { done <- err }}))
		select {
		case err := <-done:
			mustOK(t, err)
		case <-time.After(8 * time.Second):
			t.Fatalf("%s: our handshake did not end", what)
		}
		far.awaitKeys(what)
	}
	check := func(what string) {
		t.Helper()
		heard.reset()
		heard.take(t, pcmRate/4) // the pipeline fills
		assertTone(t, what+": we hear the far end", heard.take(t, pcmRate/2), pcmRate, 1000)
		got := far.hear(what, pcmRate/2+pcmRate/4)
		assertTone(t, what+": the far end hears us", got[pcmRate/4:], pcmRate, 440)
	}

	fp := far.listen(false)
	setup("first association", fp, "")
	defer feeder(t, s, 440)()
	check("before the re-INVITE")

	// A re-INVITE with the same certificate and roles keeps the
	// association (RFC 5763 6.7.1), whether it adds a tls-id or not.
	d := s.dtls.Load()
	mustOK(t, s.StartDTLS(DTLSParams{Client: true, Fingerprint: fp, TLSID: "t1"}))
	mustOK(t, s.StartDTLS(DTLSParams{Client: true, Fingerprint: fp}))
	if s.dtls.Load() != d {
		t.Fatal("the same fingerprint and roles made a new association")
	}

	// The far end restarts its DTLS: a new certificate, a new SSRC.
	setup("after the re-INVITE", far.listen(false), "t2")
	check("after the re-INVITE")

	// It restarts again with the same certificate: its new a=tls-id
	// says so (RFC 8842).
	setup("after the tls-id changed", far.listen(true), "t3")
	check("after the tls-id changed")
}

// dtlsFar is a far end on one UDP socket: DTLS records go to its pion
// DTLS server, SRTP to its own contexts; it sends a 1 kHz tone.
type dtlsFar struct {
	t      *testing.T
	conn   *net.UDPConn
	to     atomic.Pointer[net.UDPAddr] // our session, from its first record
	cur    atomic.Pointer[farPC]       // the DTLS association records go to
	rtp    chan []byte
	cert   *tls.Certificate // its DTLS certificate
	client bool             // its DTLS role (our a=setup passive); set before listen

	mu       sync.Mutex
	tx       *srtp.Context // nil: no keys (sends nothing)
	rx       *srtp.Context
	ssrc     uint32
	keysUp   chan struct{}
	done     chan struct{}
	stopOnce sync.Once
	wg       sync.WaitGroup
}

func newDTLSFar(t *testing.T) *dtlsFar {
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	mustOK(t, err)
	f := &dtlsFar{t: t, conn: c, rtp: make(chan []byte, 256), done: make(chan struct{})}
	f.wg.Add(2)
	go f.read()
	go f.send()
	return f
}

func (f *dtlsFar) addr() *net.UDPAddr { return f.conn.LocalAddr().(*net.UDPAddr) }

func (f *dtlsFar) stop() {
	f.stopOnce.Do(func() {
		close(f.done)
		_ = f.conn.Close()
		if pc := f.cur.Load(); pc != nil {
			pc.close()
		}
		f.wg.Wait()
	})
}

func (f *dtlsFar) read() {
	defer f.wg.Done()
	buf := make([]byte, 1500)
	for {
		n, from, err := f.conn.ReadFromUDP(buf)
		if err != nil {
			return
		}
		f.to.Store(from)
		p := append([]byte(nil), buf[:n]...)
		if p[0] >= 20 && p[0] <= 63 { // RFC 7983 7
			if pc := f.cur.Load(); pc != nil {
				select {
				case pc.in <- p:
				default:
				}
			}
			continue
		}
		select {
		case f.rtp <- p:
		default:
		}
	}
}

// listen starts a new DTLS server, with a new certificate unless same (a
// restart: the old association and its keys are gone), and returns its
// fingerprint.
func (f *dtlsFar) listen(same bool) string {
	f.t.Helper()
	if !same || f.cert == nil {
		cert, err := selfsign.GenerateSelfSigned()
		mustOK(f.t, err)
		f.cert = &cert
	}
	cert := *f.cert
	f.mu.Lock()
	f.tx, f.rx, f.ssrc = nil, nil, f.ssrc+0x1001
	f.keysUp = make(chan struct{})
	up := f.keysUp
	f.mu.Unlock()
	for len(f.rtp) > 0 { // the old association's packets
		<-f.rtp
	}
	pc := &farPC{f: f, in: make(chan []byte, 64), closed: make(chan struct{})}
	if old := f.cur.Swap(pc); old != nil {
		old.close()
	}
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		var conn *dtls.Conn
		var err error
		if f.client {
			conn, err = dtls.ClientWithOptions(pc, f.to.Load(),
				dtls.WithCertificates(cert),
				dtls.WithSRTPProtectionProfiles(dtls.SRTP_AES128_CM_HMAC_SHA1_80),
				dtls.WithInsecureSkipVerify(true))
		} else {
			conn, err = dtls.ServerWithOptions(pc, f.addr(),
				dtls.WithCertificates(cert),
				dtls.WithSRTPProtectionProfiles(dtls.SRTP_AES128_CM_HMAC_SHA1_80),
				dtls.WithExtendedMasterSecret(dtls.RequireExtendedMasterSecret),
				dtls.WithClientAuth(dtls.RequireAnyClientCert),
				dtls.WithInsecureSkipVerify(true))
		}
		if err != nil {
			f.t.Errorf("far end: %v", err)
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
		defer cancel()
		if err := conn.HandshakeContext(ctx); err != nil {
			return // awaitKeys reports it
		}
		state, _ := conn.ConnectionState()
		prof, _ := conn.SelectedSRTPProtectionProfile()
		sc := srtp.Config{Profile: srtp.ProtectionProfile(prof)}
		if err := sc.ExtractSessionKeysFromDTLS(&state, f.client); err != nil {
			f.t.Errorf("far end keys: %v", err)
			return
		}
		tx, err1 := srtp.CreateContext(sc.Keys.LocalMasterKey, sc.Keys.LocalMasterSalt, sc.Profile)
		rx, err2 := srtp.CreateContext(sc.Keys.RemoteMasterKey, sc.Keys.RemoteMasterSalt, sc.Profile)
		if err1 != nil || err2 != nil {
			f.t.Errorf("far end contexts: %v %v", err1, err2)
			return
		}
		f.mu.Lock()
		f.tx, f.rx = tx, rx
		f.mu.Unlock()
		close(up)
	}()
	return "sha-256 " + fingerprintOf(cert.Certificate[0])
}

func (f *dtlsFar) awaitKeys(what string) {
	f.t.Helper()
	f.mu.Lock()
	up := f.keysUp
	f.mu.Unlock()
	select {
	case <-up:
	case <-time.After(8 * time.Second):
		f.t.Fatalf("%s: the far end's handshake did not end", what)
	}
}

// send sends a 1 kHz tone in PCMU every 20 ms while it has keys.
func (f *dtlsFar) send() {
	defer f.wg.Done()
	enc, _ := newEncoder(CodecPCMU)
	var ph float64
	var seq uint16
	payload, out := make([]byte, 160), make([]byte, 1500)
	tk := time.NewTicker(frameMs * time.Millisecond)
	defer tk.Stop()
	for {
		select {
		case <-f.done:
			return
		case <-tk.C:
		}
		to := f.to.Load()
		f.mu.Lock()
		tx, ssrc := f.tx, f.ssrc
		f.mu.Unlock()
		if tx == nil || to == nil {
			continue
		}
		n, _ := enc.encode(tone(1000, pcmRate, frameLen, &ph), payload)
		seq++
		raw, _ := (&rtp.Packet{Header: rtp.Header{Version: 2, PayloadType: 0, SequenceNumber: seq,
			Timestamp: uint32(seq) * 160, SSRC: ssrc}, Payload: payload[:n]}).Marshal()
		enc, err := tx.EncryptRTP(out[:0], raw, nil)
		if err == nil {
			_, _ = f.conn.WriteToUDP(enc, to)
		}
	}
}

// hear decrypts our packets with the far end's current keys until it has n
// samples; packets of an older association do not authenticate and are
// skipped.
func (f *dtlsFar) hear(what string, n int) []int16 {
	f.t.Helper()
	f.mu.Lock()
	rx := f.rx
	f.mu.Unlock()
	dec, _ := newDecoder(CodecPCMU)
	pcm, plain := make([]int16, maxFrame), make([]byte, 1500)
	var heard []int16
	bad := 0
	for len(heard) < n {
		select {
		case p := <-f.rtp:
			var h rtp.Header
			out, err := rx.DecryptRTP(plain, p, &h)
			if err != nil {
				if bad++; bad > 50 {
					f.t.Fatalf("%s: %d of our packets do not authenticate at the far end: %v", what, bad, err)
				}
				continue
			}
			m, err := dec.decode(out[h.MarshalSize():], pcm)
			mustOK(f.t, err)
			heard = append(heard, pcm[:m]...)
		case <-time.After(2 * time.Second):
			f.t.Fatalf("%s: the far end heard %d of %d samples", what, len(heard), n)
		}
	}
	return heard
}

// farPC is one DTLS association's packet conn at the far end.
type farPC struct {
	f      *dtlsFar
	in     chan []byte
	closed chan struct{}
	once   sync.Once
}

func (p *farPC) close() { p.once.Do(func() { close(p.closed) }) }

func (p *farPC) ReadFrom(b []byte) (int, net.Addr, error) {
	select {
	case r := <-p.in:
		return copy(b, r), p.f.to.Load(), nil
	case <-p.closed:
		return 0, nil, net.ErrClosed
	}
}

func (p *farPC) WriteTo(b []byte, _ net.Addr) (int, error) {
	to := p.f.to.Load()
	if to == nil {
		return len(b), nil
	}
	return p.f.conn.WriteToUDP(b, to)
}

func (p *farPC) Close() error                     { p.close(); return nil }
func (p *farPC) LocalAddr() net.Addr              { return p.f.addr() }
func (p *farPC) SetDeadline(time.Time) error      { return nil }
func (p *farPC) SetReadDeadline(time.Time) error  { return nil }
func (p *farPC) SetWriteDeadline(time.Time) error { return nil }

// TestDTLSReplacedDuringHandshake: a re-INVITE with a new fingerprint while
// the first handshake is still under way (the far end never answered it)
// ends that handshake at once, as failed, and the new one brings the keys
// and the far end's tone.
func TestDTLSReplacedDuringHandshake(t *testing.T) {
	s, err := newTestEngine(t).NewSession(SessionConfig{CallID: "replaced"})
	mustOK(t, err)
	defer s.Close()
	var heard collector
	s.setTap(heard.add)
	far := newDTLSFar(t)
	defer far.stop()
	s.WaitForSRTP()
	// The first handshake goes to a far end that never answers, somewhere
	// else: its ClientHello reaching the new far end's server would start
	// that server on the replaced association (a race of the test, which
	// held the new handshake up for retransmissions now and then).
	silent, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	mustOK(t, err)
	defer silent.Close()
	mustOK(t, s.Start(silent.LocalAddr().(*net.UDPAddr), CodecPCMU, 101))
	first, second := make(chan error, 1), make(chan error, 1)
	mustOK(t, s.StartDTLS(DTLSParams{Client: true, Fingerprint: "sha-256 00:11", OnDone: func(err error) { first <- err }}))
	// Its ClientHello is out (its next one would be a retransmission, a
	// second later) before the re-INVITE moves the session.
	_ = silent.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, _, err := silent.ReadFromUDP(make([]byte, 1500)); err != nil {
		t.Fatalf("the first handshake sent nothing: %v", err)
	}
	// The re-INVITE names the far end's new address and fingerprint.
	mustOK(t, s.Start(far.addr(), CodecPCMU, 101))
	mustOK(t, s.StartDTLS(DTLSParams{Client: true, Fingerprint: far.listen(false), OnDone: func(err error) { second <- err }}))
	for _, w := range []struct {
		what string
		ch   chan error
		ok   bool
	}{{"the replaced handshake", first, false}, {"the new handshake", second, true}} {
		select {
		case err := <-w.ch:
			if (err == nil) != w.ok {
				t.Fatalf("%s ended with %v", w.what, err)
			}
		case <-time.After(8 * time.Second):
			t.Fatalf("%s did not end", w.what)
		}
	}
	far.awaitKeys("the new association")
	heard.take(t, pcmRate/4)
	assertTone(t, "we hear the far end", heard.take(t, pcmRate/2), pcmRate, 1000)
}

// TestDTLSRestartFromAnotherNATPort: a far end behind a NAT (its SDP names
// an address we cannot reach) is the DTLS client; it restarts its DTLS and
// comes back from another port of its NAT. As at the call's start, its new
// handshake must be taken from the SIP peer's IP and answered there, and
// its SRTP latch the stream again: tones both ways before and after.
// Before, the stream stayed latched to the old port, the new records were
// strays and the call stayed silent.
func TestDTLSRestartFromAnotherNATPort(t *testing.T) {
	s, err := newTestEngine(t).NewSession(SessionConfig{CallID: "nat-restart"})
	mustOK(t, err)
	defer s.Close()
	var heard collector
	s.setTap(heard.add)
	s.SetSignalPeer(netip.MustParseAddr("127.0.0.1"))
	sdp := &net.UDPAddr{IP: net.IPv4(127, 0, 0, 2), Port: 9}
	defer feeder(t, s, 440)()
	for _, what := range []string{"before the restart", "after the restart"} {
		far := newDTLSFar(t) // a new port of the NAT each time
		defer far.stop()
		far.client = true
		far.to.Store(s.LocalAddr())
		done := make(chan error, 1)
		s.WaitForSRTP()
		mustOK(t, s.Start(sdp, CodecPCMU, 101))
		mustOK(t, s.StartDTLS(DTLSParams{Client: false, Fingerprint: far.listen(false), OnDone: func(err error) { done <- err }}))
		select {
		case err := <-done:
			mustOK(t, err)
		case <-time.After(8 * time.Second):
			t.Fatalf("%s: our handshake did not end", what)
		}
		far.awaitKeys(what)
		heard.reset()
		heard.take(t, pcmRate/4)
		assertTone(t, what+": we hear the far end", heard.take(t, pcmRate/2), pcmRate, 1000)
		got := far.hear(what, pcmRate/2+pcmRate/4)
		assertTone(t, what+": the far end hears us", got[pcmRate/4:], pcmRate, 440)
		far.stop() // its NAT binding goes
	}
}

// TestDTLSRestartAsClientIgnoresForgedRecord: we are the client of the far
// end's new association (behind a NAT, latched to its port), and its
// server is not up yet when our ClientHello goes. A DTLS record forged
// from another port of its IP must not take our retransmissions there:
// the server sends nothing until it hears from us, so the call would stay
// silent. The forged record is a stray; the handshake completes.
func TestDTLSRestartAsClientIgnoresForgedRecord(t *testing.T) {
	s, err := newTestEngine(t).NewSession(SessionConfig{CallID: "nat-forged"})
	mustOK(t, err)
	defer s.Close()
	var heard collector
	s.setTap(heard.add)
	s.SetSignalPeer(netip.MustParseAddr("127.0.0.1"))
	sdp := &net.UDPAddr{IP: net.IPv4(127, 0, 0, 2), Port: 9}
	far := newDTLSFar(t)
	defer far.stop()
	far.client = true
	far.to.Store(s.LocalAddr())
	done := make(chan error, 1)
	s.WaitForSRTP()
	mustOK(t, s.Start(sdp, CodecPCMU, 101))
	mustOK(t, s.StartDTLS(DTLSParams{Client: false, Fingerprint: far.listen(false), OnDone: func(err error) { done <- err }}))
	mustOK(t, <-done)
	far.awaitKeys("first association")
	heard.take(t, pcmRate/4) // latched: its SRTP came

	// The far end restarts as the DTLS server; it is not listening yet.
	if pc := far.cur.Swap(nil); pc != nil {
		pc.close()
	}
	cert, err := selfsign.GenerateSelfSigned()
	mustOK(t, err)
	far.cert, far.client = &cert, false
	s.WaitForSRTP()
	mustOK(t, s.Start(sdp, CodecPCMU, 101))
	mustOK(t, s.StartDTLS(DTLSParams{Client: true, Fingerprint: "sha-256 " + fingerprintOf(cert.Certificate[0]),
		OnDone: func(err error) { done <- err }}))
	forger, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	mustOK(t, err)
	defer forger.Close()
	strays := s.StrayPackets()
	_, err = forger.WriteToUDP([]byte{22, 0xfe, 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, s.LocalAddr())
	mustOK(t, err)
	// Until the record is counted as a stray or taken (no event says so).
	deadline := time.Now().Add(3 * time.Second)
	for {
		s.mu.Lock()
		taken := s.dtlsFrom == forger.LocalAddr().(*net.UDPAddr).AddrPort()
		s.mu.Unlock()
		if taken {
			t.Fatal("a forged DTLS record took our handshake to its port")
		}
		if s.StrayPackets() > strays {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the forged record was neither a stray nor taken")
		}
		time.Sleep(5 * time.Millisecond)
	}
	far.listen(true)
	select {
	case err := <-done:
		mustOK(t, err)
	case <-time.After(8 * time.Second):
		t.Fatal("the new handshake did not end")
	}
	far.awaitKeys("new association")
	heard.reset()
	heard.take(t, pcmRate/4)
	assertTone(t, "we hear the far end after its restart", heard.take(t, pcmRate/2), pcmRate, 1000)
}

// TestDTLSFailedHandshakeEnds: a far end whose certificate does not match
// the SDP's fingerprint fails the handshake, and the failure is reported
// (OnDone) at once. pion ends a failed handshake by setting a read
// deadline in the past and waiting for its read loop; the session's DTLS
// reader did not look at a deadline set while it waited, so the handshake
// hung for ever, OnDone never came and nothing said the call was silent.
func TestDTLSFailedHandshakeEnds(t *testing.T) {
	s, err := newTestEngine(t).NewSession(SessionConfig{CallID: "mismatch"})
	mustOK(t, err)
	defer s.Close()
	far := newDTLSFar(t)
	defer far.stop()
	s.WaitForSRTP()
	mustOK(t, s.Start(far.addr(), CodecPCMU, 101))
	far.listen(false)
	done := make(chan error, 1)
	mustOK(t, s.StartDTLS(DTLSParams{Client: true, Fingerprint: "sha-256 00:11", OnDone: func(err error) { done <- err }}))
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a certificate that does not match the fingerprint was taken")
		}
	case <-time.After(8 * time.Second):
		t.Fatal("the failed handshake did not end")
	}
	if s.Encrypted() {
		t.Fatal("keys from a handshake that failed")
	}
}
