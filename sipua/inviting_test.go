package sipua

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// TestStopKeepsCancelAlive: a call ringing out when the phone stops is
// cancelled, and the user agent stays open until the CANCEL is settled,
// even when the far end answers it only after the lines have unregistered:
// the 487 then still gets its ACK (RFC 3261 17.1.1.3). Closing the user
// agent under the CANCEL crashed the phone now and then (sipgo reads the
// CANCEL's answer without checking for none, CI run 16); before the fix
// the 487 here went unacknowledged.
func TestStopKeepsCancelAlive(t *testing.T) {
	peer := newRawPeer(t)
	acc := store.Account{ID: uuid.NewString(), Username: "alice", Domain: "127.0.0.1", Port: peer.port(), Transport: "udp", Enabled: true, ExpiryS: 3600}
	p, err := New(Config{Settings: store.Settings{SIP: store.SIPSettings{Listen: "127.0.0.1:0"}, Accounts: []store.Account{acc}}, Logger: testLogger()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- p.Serve(ctx) }()
	defer stop()
	reg, from := peer.read(t, "REGISTER")
	peer.reply(t, reg, from, "200 OK")
	if _, err := p.Dial(context.Background(), "123", ""); err != nil {
		t.Fatal(err)
	}
	inv, from := peer.read(t, "INVITE")
	peer.reply(t, inv, from, "180 Ringing")
	if !testpeer.WaitFor(10*time.Second, func() bool {
		cs := p.Calls()
		return len(cs) == 1 && cs[0].State == StateRingingOut
	}) {
		t.Fatalf("the call did not ring out: %+v", p.Calls())
	}

	stop()
	// The stop cancels the call and unregisters; this far end answers the
	// un-REGISTER at once and the CANCEL half a second later.
	var cancelReq string
	unregistered := false
	for cancelReq == "" || !unregistered {
		m, from := peer.read(t, "")
		switch {
		case strings.HasPrefix(m, "CANCEL"):
			cancelReq = m
		case strings.HasPrefix(m, "REGISTER"): // retransmissions of the first too
			peer.reply(t, m, from, "200 OK")
			unregistered = unregistered || header(m, "Expires") == "0"
		}
	}
	time.Sleep(500 * time.Millisecond) // the slow far end
	peer.reply(t, cancelReq, from, "200 OK")
	peer.reply(t, inv, from, "487 Request Terminated")
	ack, _ := peer.read(t, "ACK")
	if header(ack, "Call-ID") != header(inv, "Call-ID") {
		t.Fatalf("ACK of another call:\n%s", ack)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Serve did not return")
	}
}
