package sipua

import (
	"context"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/pion/dtls/v3"
	"github.com/pion/dtls/v3/pkg/crypto/selfsign"

	"github.com/softphone/softphone/audio"
	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// TestDTLSEarlyMediaFailureRetriedAtAnswer: the far end's 183 carries a
// DTLS-SRTP answer, but it does not take part in the handshake until the
// call is answered (the phone's ClientHellos go unanswered; audio gives
// up after 15 s). There is no dialog to hang up then, so the failure is
// only logged. When the 200 comes with the same SDP the phone runs the
// handshake again, and the call has its keys. It took the failed
// association as it was: the call went active, silent for good, and
// nothing told the person.
func TestDTLSEarlyMediaFailureRetriedAtAnswer(t *testing.T) {
	peer := newRawPeer(t)
	acc := store.Account{ID: uuid.NewString(), Username: "alice", Domain: "127.0.0.1", Port: peer.port(), Transport: "udp",
		Enabled: true, MediaEncryption: store.MediaEncryptionDTLS}
	var logs syncBuf
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	p := startPhoneWith(t, store.Settings{SIP: store.SIPSettings{Listen: "127.0.0.1:0", SelectedAccount: acc.ID},
		Accounts: []store.Account{acc}}, secretMap{}, nil, withAudio(t), func(c *Config) { c.Logger = logger })
	media := newRawPeer(t)
	cert, err := selfsign.GenerateSelfSigned()
	must(t, err)
	sum := sha256.Sum256(cert.Certificate[0])
	hexes := make([]string, len(sum))
	for i, b := range sum {
		hexes[i] = fmt.Sprintf("%02X", b)
	}
	body := strings.Replace(rawSDP(media.port(), audio.SendRecv), "RTP/AVP", "UDP/TLS/RTP/SAVP", 1) +
		"a=fingerprint:sha-256 " + strings.Join(hexes, ":") + "\r\na=setup:passive\r\n"

	c, err := p.Dial(bg, "123", "")
	must(t, err)
	inv, from := peer.read(t, "INVITE")
	var rtp int
	for _, l := range strings.Split(inv, "\r\n") {
		if v, ok := strings.CutPrefix(l, "m=audio "); ok {
			rtp, _ = strconv.Atoi(strings.Fields(v)[0])
		}
	}
	answer := func(status string) {
		res := "SIP/2.0 " + status + "\r\n"
		for _, h := range []string{"Via", "From", "Call-ID", "CSeq"} {
			res += h + ": " + header(inv, h) + "\r\n"
		}
		res += "To: " + header(inv, "To") + ";tag=peer\r\nContact: <sip:123@127.0.0.1:" + itoa(peer.port()) + ">\r\n" +
			"Content-Type: application/sdp\r\nContent-Length: " + itoa(len(body)) + "\r\n\r\n" + body
		_, err := peer.conn.WriteToUDP([]byte(res), from)
		must(t, err)
	}
	answer("183 Session Progress")
	if !testpeer.WaitFor(30*time.Second, func() bool {
		return strings.Contains(logs.String(), "DTLS-SRTP handshake of early media failed")
	}) {
		t.Fatalf("the early handshake did not fail:\n%s", tail(logs.String()))
	}
	// What the early handshake sent (its ClientHellos, all queued) is read
	// and dropped, without waiting: the far end's DTLS starts now, with
	// the answer.
	rc, err := media.conn.SyscallConn()
	must(t, err)
	must(t, rc.Read(func(fd uintptr) bool {
		for {
			if _, _, err := syscall.Recvfrom(int(fd), media.buf, syscall.MSG_DONTWAIT); err != nil {
				return true
			}
		}
	}))
	answer("200 OK")
	peer.read(t, "ACK")
	conn, err := dtls.ServerWithOptions(media.conn, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: rtp},
		dtls.WithCertificates(cert), dtls.WithSRTPProtectionProfiles(dtls.SRTP_AES128_CM_HMAC_SHA1_80),
		dtls.WithClientAuth(dtls.RequireAnyClientCert), dtls.WithInsecureSkipVerify(true))
	must(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := conn.HandshakeContext(ctx); err != nil {
		t.Fatalf("no DTLS handshake from the phone after the answer: %v\n%s", err, tail(logs.String()))
	}
	got := p.waitState(c.ID, StateActive, 5*time.Second)
	if !got.Secure {
		t.Fatalf("answered call not secure: %+v", got)
	}
	must(t, p.Hangup(bg, c.ID))
	bye, bfrom := peer.read(t, "BYE")
	peer.reply(t, bye, bfrom, "200 OK")
}
