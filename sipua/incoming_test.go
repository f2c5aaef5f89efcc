package sipua

import (
	"context"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/softphone/softphone/audio"
	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// rawInvite sends an INVITE from peer to the phone with extra headers.
func rawInvite(t *testing.T, peer *rawPeer, phonePort int, extra string) {
	t.Helper()
	body := string(buildSDP("127.0.0.1", 40000, []audio.Codec{audio.CodecPCMU}, dirSendRecv, 1, 1))
	inv := fmt.Sprintf("INVITE sip:alice@127.0.0.1:%d SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:%d;branch=z9hG4bK%s;rport\r\n"+
		"From: \"Raw Peer\" <sip:4930123@127.0.0.1>;tag=r1\r\nTo: <sip:alice@127.0.0.1>\r\nCall-ID: %s\r\nCSeq: 1 INVITE\r\n"+
		"Contact: <sip:raw@127.0.0.1:%d>\r\nMax-Forwards: 70\r\n%sContent-Type: application/sdp\r\nContent-Length: %d\r\n\r\n%s",
		phonePort, peer.port(), uuid.NewString()[:8], uuid.NewString(), peer.port(), extra, len(body), body)
	if _, err := peer.conn.WriteToUDP([]byte(inv), &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: phonePort}); err != nil {
		t.Fatal(err)
	}
}

func TestCallInfoAnswerAfterAndSeanceHeader(t *testing.T) {
	peer := newRawPeer(t)
	acc := store.Account{ID: uuid.NewString(), Username: "alice", Domain: "127.0.0.1", Port: 9, Transport: "udp", Enabled: true}
	p := startPhone(t, acc, "", func(s *store.Settings) { s.SIP.AllowCallInfoAnswer = true })
	seance := uuid.NewString()
	rawInvite(t, peer, p.stackPort(), "Call-Info: <sip:127.0.0.1>;answer-after=0\r\nX-Seance-Id: "+seance+"\r\n")
	peer.read(t, "SIP/2.0 180")
	ok, _ := peer.read(t, "SIP/2.0 200")
	if header(ok, "Content-Type") != "application/sdp" {
		t.Fatalf("200 without SDP:\n%s", ok)
	}
	c := p.waitState("", StateActive, 5*time.Second)
	if c.SeanceID != seance || c.Number != "4930123" || c.Name != "Raw Peer" {
		t.Fatalf("call %+v", c)
	}
	// Not allowed: the same header only rings.
	s := p.settingsNow()
	s.SIP.AllowCallInfoAnswer = false
	p.Apply(s)
	rawInvite(t, peer, p.stackPort(), "Call-Info: <sip:127.0.0.1>;answer-after=0\r\n")
	r := p.waitState("", StateRingingIn, 5*time.Second)
	if got, _ := p.Call(r.ID); got.State != StateRingingIn {
		t.Fatalf("answered although not allowed: %s", got.State)
	}
}

// TestTwoCallsAtOnce: a second call rings while the first is active
// (call waiting); both can be handled on their own.
func TestTwoCallsAtOnce(t *testing.T) {
	kam := testpeer.Kamailio(t)
	bob := bobBaresip(t, kam, false)
	carol := testpeer.StartBaresip(t, testpeer.BaresipOpts{User: "carol", Pass: "carolpw", Registrar: kam.Addr()})
	a := startPhone(t, account(kam, "alice", "udp"), "alicepw")
	a.waitRegistered()
	_, err := bob.Ctrl("dial", "sip:alice@"+kam.Addr())
	must(t, err)
	c1 := a.waitState("", StateRingingIn, 10*time.Second)
	must(t, a.Answer(bg, c1.ID))
	a.waitState(c1.ID, StateActive, 5*time.Second)
	_, err = carol.Ctrl("dial", "sip:alice@"+kam.Addr())
	must(t, err)
	c2 := a.waitState("", StateRingingIn, 10*time.Second)
	if c2.ID == c1.ID || c2.Number != "carol" {
		t.Fatalf("second call %+v", c2)
	}
	must(t, a.Hold(bg, c1.ID))
	must(t, a.Answer(bg, c2.ID))
	a.waitState(c2.ID, StateActive, 5*time.Second)
	if n := len(a.Calls()); n != 2 {
		t.Fatalf("%d calls", n)
	}
	must(t, a.Hangup(bg, c2.ID))
	must(t, a.Resume(bg, c1.ID))
	a.waitState(c1.ID, StateActive, 5*time.Second)
	must(t, a.Hangup(bg, c1.ID))
}

// TestServeEndHangsUpAndUnregisters: when the phone stops, calls end and
// the registration is removed.
func TestServeEndHangsUpAndUnregisters(t *testing.T) {
	kam := testpeer.Kamailio(t)
	bob := bobBaresip(t, kam, true)
	acc := account(kam, "alice", "udp")
	bus := NewBus()
	sub := bus.Subscribe(16, true)
	defer sub.Close()
	p, err := New(Config{Settings: store.Settings{SIP: store.SIPSettings{Listen: "127.0.0.1:0"}, Accounts: []store.Account{acc}},
		Secrets: secretMap{"account:" + acc.ID: "alicepw"}, Bus: bus, Logger: testLogger()})
	must(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx) }()
	tp := &tphone{Phone: p, t: t, sub: sub}
	tp.waitRegistered()
	before := kam.Registered()
	c := callBob(t, tp, "bob")
	cancel()
	evs := tp.callEvents(c.ID, 10*time.Second)
	if e := evs[len(evs)-1].Call; e.Reason != ReasonLocalHangup {
		t.Fatalf("end %+v", e)
	}
	select {
	case err := <-done:
		must(t, err)
	case <-time.After(15 * time.Second):
		t.Fatal("Serve did not return")
	}
	if !testpeer.WaitFor(5*time.Second, func() bool { return kam.Registered() == before-1 }) {
		t.Fatalf("still registered: %d contacts (before %d)", kam.Registered(), before)
	}
	if !bob.WaitLog("BYE", 5*time.Second) && !bob.WaitLog("closed", 1*time.Second) {
		t.Log("baresip log shows no BYE")
	}
}
