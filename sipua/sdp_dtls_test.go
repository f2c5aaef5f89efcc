package sipua

import (
	"bytes"
	"context"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/pion/dtls/v3"
	"github.com/pion/dtls/v3/pkg/crypto/selfsign"

	"github.com/softphone/softphone/audio"
	"github.com/softphone/softphone/store"
)

// TestDTLSReofferRestartsAssociation: a far end that restarted its DTLS
// and kept its certificate says so in its re-INVITE with a new a=tls-id
// (RFC 8842 5); one that turns its role round says a=setup:active where
// it was the server (RFC 4145 4.1, RFC 5763 5). The phone must run a new
// handshake (a new ClientHello, with a new random, at the far end's RTP
// port) for the first and take the server's role for the second. sipua
// read neither: the same fingerprint kept the old association, so the
// call stayed silent (the far end waits for a handshake that never
// comes), and the answer still said a=setup:active, clients both ways.
func TestDTLSReofferRestartsAssociation(t *testing.T) {
	p, r := dtlsRawCallerPhone(t)
	media := newRawPeer(t) // the far end's RTP port: the phone's DTLS records come here
	fp := "sha-256 " + strings.TrimSuffix(strings.Repeat("AB:", 32), ":")
	offer := func(setup, tlsID string) string {
		s := strings.Replace(rawSDP(media.port(), audio.SendRecv), "RTP/AVP", "UDP/TLS/RTP/SAVP", 1)
		return s + "a=fingerprint:" + fp + "\r\na=setup:" + setup + "\r\na=tls-id:" + tlsID + "\r\n"
	}
	// clientHello waits for a ClientHello (RFC 6347 4.2.2; a record's
	// header is 13 bytes, a handshake's 12, then the version and the 32
	// bytes of random) whose random is not old's.
	clientHello := func(what string, old []byte) []byte {
		t.Helper()
		deadline := time.Now().Add(6 * time.Second)
		for {
			_ = media.conn.SetReadDeadline(deadline)
			n, _, err := media.conn.ReadFromUDP(media.buf)
			if err != nil {
				t.Fatalf("%s: no new ClientHello from the phone: %v", what, err)
			}
			b := media.buf[:n]
			if n >= 59 && b[0] == 22 && b[13] == 1 && !bytes.Equal(b[27:59], old) {
				return append([]byte(nil), b[27:59]...)
			}
		}
	}
	setupOf := func(res string) string {
		for _, l := range strings.Split(res, "\r\n") {
			if v, ok := strings.CutPrefix(l, "a=setup:"); ok {
				return v
			}
		}
		return ""
	}

	br := r.request("INVITE", r.callID, r.ftag, "", 1, "", offer("actpass", "aa01"))
	r.cseq, r.invBr = 1, br
	res := r.final(br)
	if statusOf(res) != 200 || setupOf(res) != "active" {
		t.Fatalf("DTLS offer answered %.40q, a=setup:%s (want 200, active)", res, setupOf(res))
	}
	r.ttag = tagOf(header(res, "To"))
	r.ack(1, "")
	c := p.waitState("", StateActive, 5*time.Second)
	t.Cleanup(func() {
		if err := p.Hangup(bg, c.ID); err != nil {
			return
		}
		if bye, ok := r.find(5*time.Second, func(m string) bool {
			return strings.HasPrefix(m, "BYE ") && header(m, "Call-ID") == r.callID
		}); ok {
			r.answer(bye, "200 OK", "", "")
		}
	})
	first := clientHello("the call's handshake", nil)

	reinvite := func(what, setup, tlsID, wantSetup string) {
		t.Helper()
		br := r.inDialog("INVITE", "", offer(setup, tlsID))
		res := r.final(br)
		if statusOf(res) != 200 || setupOf(res) != wantSetup {
			t.Fatalf("%s: re-INVITE answered %.40q, a=setup:%s (want 200, %s)", what, res, setupOf(res), wantSetup)
		}
		r.ack(r.cseq, "")
	}
	// The same tls-id and roles: the association stays (RFC 5763 6.7.1).
	reinvite("the same association", "actpass", "aa01", "active")
	reinvite("a new tls-id", "actpass", "bb02", "active")
	clientHello("after the new tls-id", first)
	// The far end takes the client's role: the phone answers as the server.
	reinvite("the far end now the client", "active", "cc03", "passive")
}

// dtlsRawCallerPhone is rawCallerPhone's auto-answering phone and caller,
// with a real audio engine (DTLS).
func dtlsRawCallerPhone(t *testing.T) (*tphone, *rawCaller) {
	t.Helper()
	peer := newRawPeer(t)
	acc := store.Account{ID: uuid.NewString(), Username: "alice", Domain: "127.0.0.1", Port: peer.port(), Transport: "udp", Enabled: true}
	s := store.Settings{SIP: store.SIPSettings{Listen: "127.0.0.1:0", SelectedAccount: acc.ID, AutoAnswer: true}, Accounts: []store.Account{acc}}
	p := startPhoneWith(t, s, secretMap{}, nil, withAudio(t))
	return p, &rawCaller{rawPeer: peer, t: t, phone: &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: p.stackPort()},
		callID: uuid.NewString(), ftag: "c" + uuid.NewString()[:8]}
}

// TestDTLSOfferFingerprintHashes: a DTLS-SRTP offer may name the far
// end's certificate with several hash functions (RFC 8122 5); the phone
// checks sha-256. An offer listing sha-256 and then sha-1 is answered
// (the last line was taken: 500 when answered); one with sha-1 only gets
// 488 before it rings (it rang, and got 500 when answered).
func TestDTLSOfferFingerprintHashes(t *testing.T) {
	p, r := dtlsRawCallerPhone(t)
	hex := func(n int) string { return strings.TrimSuffix(strings.Repeat("AB:", n), ":") }
	for i, tc := range []struct {
		name, fps string
		want      int
	}{
		{"sha-256 then sha-1", "a=fingerprint:sha-256 " + hex(32) + "\r\na=fingerprint:sha-1 " + hex(20) + "\r\n", 200},
		{"sha-1 only", "a=fingerprint:sha-1 " + hex(20) + "\r\n", 488},
		{"sha-256 of 2 bytes", "a=fingerprint:sha-256 00:11\r\n", 488},
		{"sha-256 not hex", "a=fingerprint:sha-256 " + strings.Replace(hex(32), "AB", "ZZ", 1) + "\r\n", 488},
	} {
		sdp := strings.Replace(rawSDP(40000+2*i, audio.SendRecv), "RTP/AVP", "UDP/TLS/RTP/SAVP", 1) + tc.fps + "a=setup:actpass\r\n"
		callID := uuid.NewString()
		br := r.request("INVITE", callID, r.ftag, "", 1, "", sdp)
		var res string
		for res = r.response(br); statusOf(res) < 200; res = r.response(br) {
			if statusOf(res) == 180 && tc.want >= 300 {
				t.Fatalf("%s: rang", tc.name)
			}
		}
		if statusOf(res) != tc.want {
			t.Fatalf("%s: answered %q, want %d", tc.name, strings.SplitN(res, "\r\n", 2)[0], tc.want)
		}
		if tc.want >= 300 {
			r.ack(1, br)
			continue
		}
		r.callID, r.ttag = callID, tagOf(header(res, "To"))
		r.ack(1, "")
		c := p.waitState("", StateActive, 5*time.Second)
		must(t, p.Hangup(bg, c.ID))
		if bye, ok := r.requestFromPhone("BYE", 5*time.Second); ok {
			r.answer(bye, "200 OK", "", "")
		}
	}
}

// TestDTLSAnswerWithoutSHA256: the answer to our DTLS-SRTP offer that
// names the far end's certificate with sha-1 only (RFC 8122 5 lets it
// list any hash function; audio's handshake checks sha-256, the one
// every endpoint supports) is unusable: the call is confirmed (ACK),
// hung up (BYE) and ends at once as not encrypted, as a clear answer to
// a required encryption does. It went active and waited for a handshake
// that could only fail.
func TestDTLSAnswerWithoutSHA256(t *testing.T) {
	peer := newRawPeer(t)
	acc := store.Account{ID: uuid.NewString(), Username: "alice", Domain: "127.0.0.1", Port: peer.port(), Transport: "udp",
		Enabled: true, MediaEncryption: store.MediaEncryptionDTLS}
	p := startPhoneWith(t, store.Settings{SIP: store.SIPSettings{Listen: "127.0.0.1:0", SelectedAccount: acc.ID},
		Accounts: []store.Account{acc}}, secretMap{}, nil, withAudio(t))
	media := newRawPeer(t)
	c, err := p.Dial(bg, "123", "")
	must(t, err)
	inv, from := peer.read(t, "INVITE")
	if !strings.Contains(inv, "UDP/TLS/RTP/SAVP") {
		t.Fatalf("no DTLS-SRTP offer:\n%s", inv)
	}
	body := strings.Replace(rawSDP(media.port(), audio.SendRecv), "RTP/AVP", "UDP/TLS/RTP/SAVP", 1) +
		"a=fingerprint:sha-1 " + strings.TrimSuffix(strings.Repeat("AB:", 20), ":") + "\r\na=setup:active\r\n"
	res := "SIP/2.0 200 OK\r\n"
	for _, h := range []string{"Via", "From", "Call-ID", "CSeq"} {
		res += h + ": " + header(inv, h) + "\r\n"
	}
	res += "To: " + header(inv, "To") + ";tag=peer\r\nContact: <sip:123@127.0.0.1:" + itoa(peer.port()) + ">\r\n" +
		"Content-Type: application/sdp\r\nContent-Length: " + itoa(len(body)) + "\r\n\r\n" + body
	_, err = peer.conn.WriteToUDP([]byte(res), from)
	must(t, err)
	peer.read(t, "ACK")
	evs := p.callEvents(c.ID, 5*time.Second)
	end := evs[len(evs)-1].Call
	if end.Reason != ReasonNotEncrypted || end.Outcome != OutcomeFailed {
		t.Fatalf("ended %s/%s, want %s/failed (states %v)", end.Reason, end.Outcome, ReasonNotEncrypted, states(evs))
	}
	for _, e := range evs {
		if e.Call.State == StateActive {
			t.Fatal("the call went active")
		}
	}
	bye, bfrom := peer.read(t, "BYE")
	peer.reply(t, bye, bfrom, "200 OK")
}

// TestDTLSHandshakeFailureEndsCall: the far end's DTLS certificate does
// not match the fingerprint of its SDP (someone between the two answered
// the handshake, or a broken peer): RFC 5763 5 has the media session torn
// down. The phone hangs up (BYE) and the call ends not-encrypted; it
// stayed up, silent for good, its lock closed, nothing said why.
func TestDTLSHandshakeFailureEndsCall(t *testing.T) {
	p, r := dtlsRawCallerPhone(t)
	media := newRawPeer(t)
	fp := "sha-256 " + strings.TrimSuffix(strings.Repeat("AB:", 32), ":")
	offer := strings.Replace(rawSDP(media.port(), audio.SendRecv), "RTP/AVP", "UDP/TLS/RTP/SAVP", 1) +
		"a=fingerprint:" + fp + "\r\na=setup:actpass\r\n"
	br := r.request("INVITE", r.callID, r.ftag, "", 1, "", offer)
	r.cseq, r.invBr = 1, br
	res := r.final(br)
	if statusOf(res) != 200 {
		t.Fatalf("DTLS offer answered %.40q", res)
	}
	var rtp int
	for _, l := range strings.Split(res, "\r\n") {
		if v, ok := strings.CutPrefix(l, "m=audio "); ok {
			rtp, _ = strconv.Atoi(strings.Fields(v)[0])
		}
	}
	r.ttag = tagOf(header(res, "To"))
	r.ack(1, "")
	c := p.waitState("", StateActive, 5*time.Second)
	// The far end's DTLS server, with a certificate of its own (not the
	// one fp names), on the RTP port the offer named.
	cert, err := selfsign.GenerateSelfSigned()
	must(t, err)
	conn, err := dtls.ServerWithOptions(media.conn, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: rtp},
		dtls.WithCertificates(cert), dtls.WithSRTPProtectionProfiles(dtls.SRTP_AES128_CM_HMAC_SHA1_80),
		dtls.WithClientAuth(dtls.RequireAnyClientCert), dtls.WithInsecureSkipVerify(true))
	must(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
		defer cancel()
		_ = conn.HandshakeContext(ctx) // the phone refuses its certificate
	}()
	bye, ok := r.find(10*time.Second, func(m string) bool {
		return strings.HasPrefix(m, "BYE ") && header(m, "Call-ID") == r.callID
	})
	if !ok {
		t.Fatal("the phone did not hang up after the handshake failed")
	}
	r.answer(bye, "200 OK", "", "")
	ended := p.waitState(c.ID, StateEnded, 5*time.Second)
	if ended.Reason != ReasonNotEncrypted {
		t.Fatalf("ended with reason %s, want %s", ended.Reason, ReasonNotEncrypted)
	}
}
