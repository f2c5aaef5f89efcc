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

// TestRTCPToTheSDPsRTCPPort: a far end whose SDP names its RTCP port
// with a=rtcp (RFC 3605: a NAT's or an SBC's ports need not be
// adjacent) gets the phone's sender reports there. They went to the RTP
// port + 1 whatever the SDP said; the far end never had one. A re-INVITE
// that names no a=rtcp moves them back to RTP + 1 (RFC 3550 11).
func TestRTCPToTheSDPsRTCPPort(t *testing.T) {
	peer := newRawPeer(t)
	acc := store.Account{ID: uuid.NewString(), Username: "alice", Domain: "127.0.0.1", Port: peer.port(), Transport: "udp", Enabled: true}
	s := store.Settings{SIP: store.SIPSettings{Listen: "127.0.0.1:0", SelectedAccount: acc.ID, AutoAnswer: true}, Accounts: []store.Account{acc}}
	p := startPhoneWith(t, s, secretMap{}, nil, withAudioCfg(t, audio.EngineConfig{RTCPInterval: 200 * time.Millisecond}))
	r := &rawCaller{rawPeer: peer, t: t, phone: &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: p.stackPort()},
		callID: uuid.NewString(), ftag: "c" + uuid.NewString()[:8]}
	media := newRawPeer(t)
	rtcp := newRawPeer(t)
	for rtcp.port() == media.port()+1 {
		rtcp = newRawPeer(t)
	}
	next := newRawPeer(t) // RTP + 1 of a second RTP port, for the re-INVITE
	for next.port() == 65535 {
		next = newRawPeer(t)
	}
	// senderReport waits for an RTCP sender report (RFC 3550 6.4.1: PT 200).
	senderReport := func(what string, at *rawPeer) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			_ = at.conn.SetReadDeadline(deadline)
			n, _, err := at.conn.ReadFromUDP(at.buf)
			if err != nil {
				t.Fatalf("%s: no RTCP sender report: %v", what, err)
			}
			if n >= 8 && at.buf[0]>>6 == 2 && at.buf[1] == 200 {
				return
			}
		}
	}
	offer := strings.Replace(rawSDP(media.port(), audio.SendRecv), "a=ptime", "a=rtcp:"+itoa(rtcp.port())+" IN IP4 127.0.0.1\r\na=ptime", 1)
	br := r.request("INVITE", r.callID, r.ftag, "", 1, "", offer)
	r.cseq, r.invBr = 1, br
	res := r.final(br)
	if statusOf(res) != 200 {
		t.Fatalf("offer answered %.40q", res)
	}
	r.ttag = tagOf(header(res, "To"))
	r.ack(1, "")
	c := p.waitState("", StateActive, 5*time.Second)
	t.Cleanup(func() {
		if err := p.Hangup(bg, c.ID); err != nil {
			return
		}
		if bye, ok := r.requestFromPhone("BYE", 5*time.Second); ok {
			r.answer(bye, "200 OK", "", "")
		}
	})
	senderReport("a=rtcp", rtcp)

	// A new RTP port one below next's, no a=rtcp: RTCP goes to next.
	reoffer := rawSDP(next.port()-1, audio.SendRecv)
	if res := r.final(r.inDialog("INVITE", "", reoffer)); statusOf(res) != 200 {
		t.Fatalf("re-INVITE answered %.40q", res)
	}
	r.ack(r.cseq, "")
	senderReport("no a=rtcp", next)
}
