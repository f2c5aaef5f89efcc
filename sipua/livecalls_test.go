package sipua

import (
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// TestAutoAnswerFloodBounded: with auto-answer on, INVITEs keep coming and
// none hangs up. The phone answers maxLiveCalls of them; the next gets 486
// Busy Here and takes nothing (no media session, no call), and the log
// says calls are being turned away; once one call ends, a new one is
// answered again. Only ringing calls were bounded (8): each auto-answered
// call freed its ringing place, so a flood (a PBX's loop, a caller's
// script, anyone with sip.accept_calls_from anyone) had every INVITE
// answered, each with its RTP ports, goroutines and, with recording on,
// a file.
func TestAutoAnswerFloodBounded(t *testing.T) {
	logs := &syncBuf{}
	peer := newRawPeer(t)
	acc := store.Account{ID: uuid.NewString(), Username: "alice", Domain: "127.0.0.1", Port: peer.port(), Transport: "udp", Enabled: true}
	s := store.Settings{SIP: store.SIPSettings{Listen: "127.0.0.1:0", SelectedAccount: acc.ID, AutoAnswer: true}, Accounts: []store.Account{acc}}
	p := startPhoneWith(t, s, secretMap{}, nil, func(c *Config) {
		c.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	})
	r := &rawCaller{rawPeer: peer, t: t, phone: &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: p.stackPort()}}
	call := func() (*rawCaller, int) {
		t.Helper()
		rc := *r
		rc.queue = nil
		rc.callID, rc.ftag = uuid.NewString(), "c"+uuid.NewString()[:8]
		res := rc.invite("")
		if code := statusOf(res); code != 200 {
			rc.ack(1, rc.invBr)
			return &rc, code
		}
		rc.ack(1, "")
		return &rc, 200
	}
	var answered []*rawCaller
	for i := 0; i < maxLiveCalls; i++ {
		rc, code := call()
		if code != 200 {
			t.Fatalf("call %d answered %d", i+1, code)
		}
		answered = append(answered, rc)
	}
	for i := 0; i < 3; i++ {
		if _, code := call(); code != 486 {
			t.Fatalf("call %d beyond the %d live ones answered %d, want 486", i+1, maxLiveCalls, code)
		}
	}
	if n := len(p.Calls()); n != maxLiveCalls {
		t.Fatalf("%d calls live, want %d", n, maxLiveCalls)
	}
	if !strings.Contains(logs.String(), "as many calls at once") {
		t.Fatalf("the log does not say calls are turned away:\n%s", logs.String())
	}
	// One caller hangs up: a new call is answered again.
	first := answered[0]
	br := first.inDialog("BYE", "", "")
	if res := first.final(br); statusOf(res) != 200 {
		t.Fatalf("BYE answered %.40q", res)
	}
	if !testpeer.WaitFor(5*time.Second, func() bool { return len(p.Calls()) < maxLiveCalls }) {
		t.Fatal("the call hung up is still live")
	}
	last, code := call()
	if code != 200 {
		t.Fatalf("a call after one ended answered %d", code)
	}
	answered = append(answered[1:], last)
	// Hang all up before the phone stops, answering the BYEs.
	for _, c := range p.Calls() {
		_ = p.Hangup(bg, c.ID)
	}
	for range answered {
		bye, ok := r.requestFromPhone("BYE", 5*time.Second)
		if !ok {
			break
		}
		r.answer(bye, "200 OK", "", "")
	}
}
