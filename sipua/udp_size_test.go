package sipua

import (
	"strings"
	"testing"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// TestLargeRequestGoesOverTCP: an SDES offer with all three suites (one
// a=crypto line each) resent with Proxy-Authorization after kamailio's 407
// is over 1300 bytes; RFC 3261 18.1.1 sends it over TCP (the account is
// UDP, kamailio listens on both), and the call with bob is set up and
// encrypted. The small first INVITE stayed on UDP.
func TestLargeRequestGoesOverTCP(t *testing.T) {
	kam := testpeer.Kamailio(t)
	testpeer.StartBaresip(t, testpeer.BaresipOpts{User: "bob", Pass: "bobpw", Registrar: kam.Addr(),
		AutoAnswer: true, Tone: 440, MediaEnc: "srtp", Codecs: []string{"PCMU/8000/1"}})
	acc := secureAccount(kam, false)
	// The resent INVITE alone was about 1300-1360 bytes (its CSeq, ports,
	// SDP version and nonce vary in length), and fell under 1300 once in
	// CI: a 90-byte display name keeps it well over, and the first INVITE
	// (no credentials, about 230 bytes less) well under.
	acc.Name = strings.TrimSpace(strings.Repeat("Alice of Accounts ", 5))
	a := startPhoneWith(t, store.Settings{SIP: store.SIPSettings{Listen: "127.0.0.1:0"}, Accounts: []store.Account{acc}},
		secretMap{"account:" + acc.ID: "alicepw"}, nil, withAudio(t))
	a.waitRegistered()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("phone's SIP trace:\n%s", tail(a.SIPTrace()))
		}
	})
	c := callBob(t, a, "bob")
	if !c.Secure {
		t.Fatalf("call not encrypted: %+v", c)
	}
	must(t, a.Hangup(bg, c.ID))
	var udpInvite, tcpInvite int
	for _, m := range strings.Split(a.SIPTrace(), "=== ")[1:] {
		head, body, _ := strings.Cut(m, "\n")
		if !strings.Contains(head, " sent ") || !strings.HasPrefix(body, "INVITE ") {
			continue
		}
		switch {
		case strings.Contains(head, "sent UDP"):
			if strings.Contains(body, "Proxy-Authorization") {
				t.Errorf("the INVITE with credentials went over UDP (%d bytes)", len(body))
			}
			if !strings.Contains(body, acc.Name) {
				t.Errorf("the INVITE does not carry the display name:\n%s", body)
			}
			udpInvite++
		case strings.Contains(head, "sent TCP"):
			// (the trace redacts keys and credentials: its sizes are not the wire's)
			if !strings.Contains(body, "Via: SIP/2.0/TCP ") || !strings.Contains(body, "Proxy-Authorization") {
				t.Errorf("INVITE over TCP without a TCP Via or credentials:\n%s", body)
			}
			tcpInvite++
		}
	}
	if udpInvite != 1 || tcpInvite != 1 {
		t.Fatalf("INVITEs sent: %d over UDP, %d over TCP; want the first over UDP, the one after the 407 over TCP", udpInvite, tcpInvite)
	}
}
