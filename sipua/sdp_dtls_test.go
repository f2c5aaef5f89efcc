package sipua

import (
	"bytes"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

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
