package sipua

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/softphone/softphone/audio"
	"github.com/softphone/softphone/store"
)

// TestForkedSecondAnswerAckedAndEnded: our INVITE is forked by a proxy
// and a second far end answers 200 too (another To tag). RFC 3261
// 13.2.2.4: the UAC MUST ACK each 2xx, and one it does not want goes on
// with a BYE. The second far end's 200 got the first dialog's ACK (sipgo's
// retransmission hook) and no BYE: it resent its 200 for 32 s, its person
// answering into silence until it gave up. Now it gets its own ACK (again
// for each retransmission) and a BYE, and the call goes on with the first.
func TestForkedSecondAnswerAckedAndEnded(t *testing.T) {
	peer := newRawPeer(t)
	acc := store.Account{ID: uuid.NewString(), Username: "alice", Domain: "127.0.0.1", Port: peer.port(), Transport: "udp", Enabled: true}
	p := startPhone(t, acc, "")
	media := newRawPeer(t)
	c, err := p.Dial(bg, "123", "")
	must(t, err)
	inv, from := peer.read(t, "INVITE")
	body := rawSDP(media.port(), audio.SendRecv)
	ok := func(tag string) string {
		res := "SIP/2.0 200 OK\r\n"
		for _, h := range []string{"Via", "From", "Call-ID", "CSeq"} {
			res += h + ": " + header(inv, h) + "\r\n"
		}
		return res + "To: " + header(inv, "To") + ";tag=" + tag + "\r\nContact: <sip:123@127.0.0.1:" + itoa(peer.port()) + ";fork=" + tag + ">\r\n" +
			"Content-Type: application/sdp\r\nContent-Length: " + itoa(len(body)) + "\r\n\r\n" + body
	}
	send := func(m string) {
		t.Helper()
		if _, err := peer.conn.WriteToUDP([]byte(m), from); err != nil {
			t.Fatal(err)
		}
	}
	send(ok("first"))
	if ack, _ := peer.read(t, "ACK"); !strings.Contains(header(ack, "To"), "tag=first") {
		t.Fatalf("the first 200's ACK:\n%s", ack)
	}
	p.waitState(c.ID, StateActive, 5*time.Second)
	// The second far end answers, and resends its 200 once (as it does
	// every T1 until an ACK comes).
	send(ok("second"))
	var acks int
	var bye string
	deadline := time.Now().Add(10 * time.Second)
	next := func() (string, *net.UDPAddr) {
		t.Helper()
		_ = peer.conn.SetReadDeadline(deadline)
		n, from, err := peer.conn.ReadFromUDP(peer.buf)
		if err != nil {
			t.Fatalf("the second 200: %d ACKs of it, BYE %v (%v)", acks, bye != "", err)
		}
		return string(peer.buf[:n]), from
	}
	for acks == 0 || bye == "" {
		m, bfrom := next()
		switch {
		case strings.HasPrefix(m, "ACK ") && strings.Contains(header(m, "To"), "tag=second"):
			if !strings.HasPrefix(m, "ACK sip:123@127.0.0.1:"+itoa(peer.port())+";fork=second ") || header(m, "CSeq") != strings.Fields(header(inv, "CSeq"))[0]+" ACK" {
				t.Fatalf("the second 200's ACK is not sent to its Contact with the INVITE's CSeq:\n%s", m)
			}
			acks++
			if acks == 1 {
				send(ok("second"))
			}
		case strings.HasPrefix(m, "BYE ") && strings.Contains(header(m, "To"), "tag=second"):
			bye = m
			res := "SIP/2.0 200 OK\r\n"
			for _, h := range []string{"Via", "From", "To", "Call-ID", "CSeq"} {
				res += h + ": " + header(m, h) + "\r\n"
			}
			if _, err := peer.conn.WriteToUDP([]byte(res+"Content-Length: 0\r\n\r\n"), bfrom); err != nil {
				t.Fatal(err)
			}
		case strings.HasPrefix(m, "BYE "):
			t.Fatalf("a BYE of the first dialog:\n%s", m)
		}
	}
	// The retransmitted 200 gets its ACK again.
	for acks < 2 {
		m, _ := next()
		if strings.HasPrefix(m, "ACK ") && strings.Contains(header(m, "To"), "tag=second") {
			acks++
		}
	}
	if got, ok := p.Call(c.ID); !ok || got.State != StateActive {
		t.Fatalf("the call with the first far end: %+v", got)
	}
	must(t, p.Hangup(bg, c.ID))
	for {
		m, bfrom := next()
		if strings.HasPrefix(m, "BYE ") {
			if !strings.Contains(header(m, "To"), "tag=first") {
				t.Fatalf("the hang-up's BYE:\n%s", m)
			}
			peer.reply(t, m, bfrom, "200 OK")
			break
		}
	}
	p.waitState(c.ID, StateEnded, 5*time.Second)
}
