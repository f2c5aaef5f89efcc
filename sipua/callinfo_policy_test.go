package sipua

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/softphone/softphone/store"
)

// TestCallInfoAnswerOnlyFromServers: with sip.allow_call_info_answer (a
// PBX's intercom) and sip.accept_calls_from anyone, a caller that is none
// of the account's servers sends Call-Info answer-after=0. The call rings
// and is not answered: the caller's CANCEL gets 487. It was answered at
// once, so any host on the network could open the person's microphone
// (a tab holding the audio sends it) without anyone touching the phone.
// From the server the header still answers
// (TestCallInfoAnswerAfterAndSeanceHeader).
func TestCallInfoAnswerOnlyFromServers(t *testing.T) {
	peer := newRawPeer(t)
	acc := store.Account{ID: uuid.NewString(), Username: "alice", Domain: "127.0.0.3", Port: peer.port(), Transport: "udp", Enabled: true}
	p := startPhone(t, acc, "", anyone, func(s *store.Settings) { s.SIP.AllowCallInfoAnswer = true })
	r := &rawCaller{rawPeer: peer, t: t, phone: &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: p.stackPort()},
		callID: uuid.NewString(), ftag: "c" + uuid.NewString()[:8]}
	if res := r.invite("Call-Info: <sip:127.0.0.1>;answer-after=0\r\n"); statusOf(res) != 180 {
		t.Fatalf("INVITE with answer-after=0 from a host that is no server answered %.40q, want 180", res)
	}
	c := p.waitState("", StateRingingIn, 5*time.Second)
	// answer-after=0 answers within milliseconds where it is taken.
	for quiet := time.After(2 * time.Second); ; {
		select {
		case e := <-p.sub.C():
			if e.Call.ID == c.ID && e.Call.State == StateActive {
				t.Fatalf("answered by the caller's Call-Info: %+v", e.Call)
			}
			continue
		case <-quiet:
		}
		break
	}
	r.write(fmt.Sprintf("CANCEL sip:alice@127.0.0.1:%d SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:%d;branch=%s;rport\r\n"+
		"From: \"Raw Caller\" <sip:4930123@127.0.0.1>;tag=%s\r\nTo: <sip:alice@127.0.0.1>\r\nCall-ID: %s\r\nCSeq: 1 CANCEL\r\n"+
		"Max-Forwards: 70\r\nContent-Length: 0\r\n\r\n", r.phone.Port, r.port(), r.invBr, r.ftag, r.callID))
	res, ok := r.find(5*time.Second, func(m string) bool {
		return strings.HasPrefix(m, "SIP/2.0 ") && strings.Contains(header(m, "Via"), r.invBr) &&
			header(m, "CSeq") == "1 INVITE" && statusOf(m) >= 200
	})
	if !ok || statusOf(res) != 487 {
		t.Fatalf("the INVITE's final answer %.40q, want 487 (not answered)", res)
	}
	r.ack(1, r.invBr)
	if end := p.waitState(c.ID, StateEnded, 5*time.Second); end.Outcome != OutcomeMissed {
		t.Fatalf("ended %+v", end)
	}
}
