package audio

import (
	"bytes"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"hash"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pion/dtls/v3"
	"github.com/pion/dtls/v3/pkg/crypto/prf"
	"github.com/pion/dtls/v3/pkg/protocol/extension"
	"github.com/pion/dtls/v3/pkg/protocol/handshake"
	"github.com/pion/rtp"
	"github.com/pion/srtp/v3"
	"github.com/pion/webrtc/v4"
)

// The tab's media below pion's upper layers.
//
// pion hands every packet from the tab through four goroutines (the ICE
// candidate's reader, the mux, the SRTP session, the track's buffer) and
// allocates on each; with more than one processor nearly every hand-off woke
// a sleeping thread, which was most of the phone's CPU in a call. Once the
// DTLS handshake is done, the bridge keeps pion for signalling, ICE checks,
// DTLS and RTCP, and carries the RTP itself: the socket of the selected ICE
// pair decrypts the tab's packets in the goroutine that read them and hands
// them straight on to the call (bridge_net.go), and packets toward the tab
// are numbered, encrypted and written to that socket by whoever made them
// (the call's reader, the mixer). No hand-off, no allocation per packet.
//
// The SRTP keys come from the DTLS handshake (RFC 5764 4.2): pion keeps its
// dtls.Conn to itself, so the bridge is the DTLS server toward the tab
// (a=setup:passive, RFC 5763 5), sees its own ServerHello (server random,
// cipher suite, SRTP profile) and reads the master secret from the key log
// pion writes for this one connection (NSS key log format); the exporter
// (RFC 5705 4) is then computed exactly as pion/dtls does.

// dtlsSecrets collects what one tab's handshake reveals.
type dtlsSecrets struct {
	mu           sync.Mutex
	clientRandom []byte
	master       []byte
	serverRandom []byte
	suite        dtls.CipherSuiteID
	profile      dtls.SRTPProtectionProfile
}

// Write takes the key log lines ("CLIENT_RANDOM <hex> <hex>").
func (d *dtlsSecrets) Write(p []byte) (int, error) {
	for _, line := range bytes.Split(p, []byte("\n")) {
		f := bytes.Fields(line)
		if len(f) != 3 || string(f[0]) != "CLIENT_RANDOM" {
			continue
		}
		cr, err1 := hex.DecodeString(string(f[1]))
		ms, err2 := hex.DecodeString(string(f[2]))
		if err1 != nil || err2 != nil {
			continue
		}
		d.mu.Lock()
		d.clientRandom, d.master = cr, ms
		d.mu.Unlock()
	}
	return len(p), nil
}

// serverHello notes our ServerHello and sends it unchanged.
func (d *dtlsSecrets) serverHello(m handshake.MessageServerHello) handshake.Message {
	r := m.Random.MarshalFixed()
	d.mu.Lock()
	d.serverRandom = r[:]
	if m.CipherSuiteID != nil {
		d.suite = dtls.CipherSuiteID(*m.CipherSuiteID)
	}
	for _, e := range m.Extensions {
		if u, ok := e.(*extension.UseSRTP); ok && len(u.ProtectionProfiles) == 1 {
			d.profile = dtls.SRTPProtectionProfile(u.ProtectionProfiles[0])
		}
	}
	d.mu.Unlock()
	return &m
}

var errNoSecrets = errors.New("audio: the DTLS handshake revealed no keys")

// ExportKeyingMaterial is RFC 5705's exporter (no context), as pion/dtls
// computes it: PRF(master_secret, label, client_random + server_random).
func (d *dtlsSecrets) ExportKeyingMaterial(label string, _ []byte, n int) ([]byte, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.master == nil || d.serverRandom == nil || d.profile == 0 {
		return nil, errNoSecrets
	}
	h := func() hash.Hash { return sha256.New() }
	switch d.suite {
	case dtls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, dtls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384:
		h = sha512.New384
	}
	seed := append(append([]byte(label), d.clientRandom...), d.serverRandom...)
	return prf.PHash(d.master, seed, n, h)
}

// contexts makes the SRTP contexts toward (tx) and from (rx) the tab.
func (d *dtlsSecrets) contexts() (tx, rx *srtp.Context, err error) {
	d.mu.Lock()
	profile := srtp.ProtectionProfile(d.profile)
	d.mu.Unlock()
	cfg := srtp.Config{Profile: profile}
	if err := cfg.ExtractSessionKeysFromDTLS(d, false); err != nil {
		return nil, nil, err
	}
	tx, err = srtp.CreateContext(cfg.Keys.LocalMasterKey, cfg.Keys.LocalMasterSalt, profile)
	if err != nil {
		return nil, nil, err
	}
	rx, err = srtp.CreateContext(cfg.Keys.RemoteMasterKey, cfg.Keys.RemoteMasterSalt, profile)
	return tx, rx, err
}

// fastPath is one tab's media on the socket of its selected ICE pair.
type fastPath struct {
	t    *tab
	sock *localOnly

	// receiving: the ICE socket's reader or a call's reader pumping the
	// quiet socket (bridge_quiet.go), one at a time
	rxMu   sync.Mutex
	rx     *srtp.Context
	rxHdr  rtp.Header
	rxBuf  []byte
	mic    micState
	remote atomic.Pointer[netip.AddrPort] // where the tab's media comes from

	mu    sync.Mutex // sending
	tx    *srtp.Context
	ssrc  uint32
	plain []byte
	enc   []byte
	hdr   rtp.Header

	// the quiet socket (bridge_quiet.go); quiet is written with qmu and mu
	// held, so either one keeps it open while it is used
	qmu      sync.Mutex
	quiet    quietSock
	quietAt  time.Time // the last packet from the PBX that pumped
	quietNot time.Time // no quiet socket tried before then (one failed)
	qbuf     []byte
	stopped  bool // stopFast: no quiet socket any more
}

// isRTP tells RTP from RTCP, STUN and DTLS on a shared port (RFC 7983 7,
// RFC 5761 4: RTCP packet types 192-223 fill the second byte).
func isRTP(b []byte) bool {
	return len(b) >= 12 && b[0]>>6 == 2 && (b[1] < 192 || b[1] > 223)
}

// startFast moves the tab's RTP onto the fast path once its connection is
// up. Without the keys (a handshake pion did another way) pion keeps the
// media.
func (t *tab) startFast() {
	if t.secrets == nil || t.b.socks == nil || t.fast.Load() != nil {
		return
	}
	pair, err := t.sender.Transport().ICETransport().GetSelectedCandidatePair()
	if err != nil || pair == nil {
		return
	}
	local, err1 := netip.ParseAddr(pair.Local.Address)
	remote, err2 := netip.ParseAddr(pair.Remote.Address)
	if err1 != nil || err2 != nil {
		return
	}
	sock := t.b.socks.find(netip.AddrPortFrom(local, pair.Local.Port))
	if sock == nil {
		return
	}
	tx, rx, err := t.secrets.contexts()
	if err != nil {
		t.b.eng.log.Debug("tab media stays in pion", "tab", t.id, "err", err)
		return
	}
	enc := t.sender.GetParameters().Encodings
	if len(enc) == 0 {
		return
	}
	f := &fastPath{t: t, sock: sock, rx: rx, tx: tx, ssrc: uint32(enc[0].SSRC),
		rxBuf: make([]byte, 1500), plain: make([]byte, 1500), enc: make([]byte, 1500), qbuf: make([]byte, 1500)}
	f.mic.init(t)
	r := netip.AddrPortFrom(remote.Unmap(), pair.Remote.Port)
	f.remote.Store(&r)
	t.fast.Store(f)
	sock.tap.Store(f)
	t.b.eng.log.Debug("tab media on the fast path", "tab", t.id, "local", sock.LocalAddr().String())
}

// stopFast gives the socket back to pion alone.
func (t *tab) stopFast() {
	if f := t.fast.Swap(nil); f != nil {
		f.qmu.Lock()
		f.stopped = true
		f.closeQuietLocked()
		f.qmu.Unlock()
		f.sock.tap.CompareAndSwap(f, nil)
	}
}

// receive takes one datagram that looks like RTP; false hands it to pion
// (it did not authenticate with this tab's keys).
func (f *fastPath) receive(b []byte, from netip.AddrPort) bool {
	f.rxMu.Lock()
	defer f.rxMu.Unlock()
	plain, err := f.rx.DecryptRTP(f.rxBuf, b, &f.rxHdr)
	if err != nil {
		return false
	}
	if r := f.remote.Load(); r == nil || *r != from {
		nr := from // a copy, so only a move allocates
		f.remote.Store(&nr)
	}
	payload := plain[f.rxHdr.MarshalSize():]
	if f.rxHdr.Padding && len(payload) > 0 { // RFC 3550 5.1: the last octet counts the padding
		payload = payload[:max(0, len(payload)-int(payload[len(payload)-1]))]
	}
	f.t.b.fastIn.Add(1)
	f.mic.packet(&f.rxHdr, payload)
	return true
}

// send writes one packet toward the tab; false when the fast path is not
// up (pion's track carries it then).
func (f *fastPath) send(pt uint8, payload []byte, marker bool, seq uint16, ts uint32) bool {
	r := f.remote.Load()
	if r == nil {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hdr = rtp.Header{Version: 2, Marker: marker, PayloadType: pt, SequenceNumber: seq, Timestamp: ts, SSRC: f.ssrc}
	n, err := f.hdr.MarshalTo(f.plain)
	if err != nil || n+len(payload) > len(f.plain) {
		return false
	}
	n += copy(f.plain[n:], payload)
	out, err := f.tx.EncryptRTP(f.enc, f.plain[:n], &f.hdr)
	if err != nil {
		return false
	}
	if !f.quietTo(out, *r) {
		_, _ = f.sock.WriteToAddrPort(out, *r)
	}
	f.t.b.fastOut.Add(1)
	return true
}

// send writes one packet to the tab, numbered into its continuous stream,
// on the fast path when it is up, else through pion's track.
func (t *tab) send(track *webrtc.TrackLocalStaticRTP, pt uint8, payload []byte, marker bool, seq uint16, ts uint32) {
	if f := t.fast.Load(); f != nil && f.send(pt, payload, marker, seq, ts) {
		return
	}
	write(track, payload, marker, seq, ts)
}
