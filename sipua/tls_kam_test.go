package sipua

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// TestTLSThroughKamailio: the phone registers over TLS at kamailio's TLS
// module (no TLS listener of its own), places a call over it, and gets an
// incoming call over the registration's own connection (RFC 5626
// connection reuse; kamailio keeps the connection's source address); both
// calls are SRTP, so their cards show the closed lock.
func TestTLSThroughKamailio(t *testing.T) {
	kam := testpeer.KamailioTLS(t)
	bob := testpeer.StartBaresip(t, testpeer.BaresipOpts{User: "bob", Pass: "bobpw", Registrar: kam.Addr(),
		AutoAnswer: true, Tone: 440, MediaEnc: "srtp", Codecs: []string{"PCMU/8000/1"}})
	acc := store.Account{ID: uuid.NewString(), Name: "alice", Username: "alice", Domain: "127.0.0.1", Port: kam.TLSPort,
		Transport: "tls", ExpiryS: 300, Enabled: true, CAFile: kam.Certs.CA, MediaEncryption: store.MediaEncryptionSDES}
	a := startPhoneWith(t, store.Settings{SIP: store.SIPSettings{Listen: "127.0.0.1:0", AutoAnswer: true},
		Accounts: []store.Account{acc}}, secretMap{"account:" + acc.ID: "alicepw"}, nil, withAudio(t))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("phone's SIP trace:\n%s\nkamailio:\n%s", tail(a.SIPTrace()), tail(kam.Log()))
		}
	})
	a.waitRegistered()
	if n := kam.RegisteredOver("tls"); n != 1 {
		t.Fatalf("%d registrations over TLS at kamailio, want 1", n)
	}

	out := callBob(t, a, "sips:bob@"+kam.TLSAddr()) // RFC 5630: TLS on the hop to the proxy
	if !out.Secure || !out.TLS {
		t.Fatalf("outgoing call over TLS: %+v", out)
	}
	must(t, a.Hangup(bg, out.ID))
	a.waitState(out.ID, StateEnded, 5*time.Second)

	_, err := bob.Ctrl("dial", "sip:alice@"+kam.Addr())
	must(t, err)
	in := a.waitState("", StateActive, 10*time.Second)
	if in.Direction != DirIn || !in.Secure || !in.TLS {
		t.Fatalf("incoming call over the registration's connection: %+v", in)
	}
	_, err = bob.Ctrl("hangup")
	must(t, err)
	evs := a.callEvents(in.ID, 10*time.Second)
	if end := evs[len(evs)-1].Call; end.Reason != ReasonRemoteHangup {
		t.Fatalf("bob's BYE over TLS: %+v", end)
	}
	// The TLS port's capture (no readable SIP on it) came out empty in
	// this test for reasons not found in time: TLS is proven by kamailio's
	// registration socket above and by Call.TLS (the transport of the INVITE).
}
