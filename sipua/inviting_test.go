package sipua

import (
	"strings"
	"testing"
	"time"
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
	tp := rawAccountPhone(t, peer)
	_, inv, from := dialRinging(t, tp, peer)

	tp.stop()
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
	// The test's cleanup fails it if Serve does not return after this.
}
