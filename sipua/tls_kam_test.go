package sipua

import (
	"strings"
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
	capt := testpeer.CapturePackets(t, "lo") // from before the phone opens its TLS connection
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
	// On the wire the phone's leg to kamailio's TLS port holds TLS records
	// only (content type 20-23, RFC 8446 5.1): a handshake, then no
	// readable SIP in either direction.
	var records, bytes int
	handshake := false
	appData := map[bool]bool{} // application data seen toward kamailio (true) and from it
	for _, p := range capt.Stop() {
		if p.Proto != "tcp" || (p.Dst.Port() != uint16(kam.TLSPort) && p.Src.Port() != uint16(kam.TLSPort)) || len(p.Payload) == 0 {
			continue
		}
		records++
		bytes += len(p.Payload)
		handshake = handshake || p.Payload[0] == 22
		if p.Payload[0] == 23 {
			appData[p.Dst.Port() == uint16(kam.TLSPort)] = true
		}
		for _, clear := range []string{"SIP/2.0", "sip:", "REGISTER ", "INVITE ", "Via:"} {
			if strings.Contains(string(p.Payload), clear) {
				t.Fatalf("clear SIP (%q) on the TLS leg %s -> %s", clear, p.Src, p.Dst)
			}
		}
		if p.Payload[0] < 20 || p.Payload[0] > 23 {
			t.Errorf("a TCP segment on the TLS leg that does not start a TLS record: %x", p.Payload[:min(8, len(p.Payload))])
		}
	}
	if !handshake || !appData[true] || !appData[false] {
		t.Fatalf("the TLS leg's capture: %d segments, %d bytes, handshake %v, application data %v: want a handshake and records both ways",
			records, bytes, handshake, appData)
	}
	t.Logf("TLS leg: %d segments, %d bytes, no clear SIP", records, bytes)
}

// TestTLSCancelThroughKamailio: a call placed over TLS and hung up while it
// rings is cancelled at the far end: the phone's own CANCEL (cancel.go)
// takes the INVITE's way, the TLS connection to kamailio, and bob's phone
// stops ringing with the call cancelled.
func TestTLSCancelThroughKamailio(t *testing.T) {
	kam := testpeer.KamailioTLS(t)
	bob := startPhone(t, account(kam.Kam, "bob", "udp"), "bobpw")
	bob.waitRegistered()
	acc := store.Account{ID: uuid.NewString(), Name: "alice", Username: "alice", Domain: "127.0.0.1", Port: kam.TLSPort,
		Transport: "tls", ExpiryS: 300, Enabled: true, CAFile: kam.Certs.CA}
	a := startPhoneWith(t, store.Settings{SIP: store.SIPSettings{Listen: "127.0.0.1:0"}, Accounts: []store.Account{acc}},
		secretMap{"account:" + acc.ID: "alicepw"}, nil)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("alice's SIP trace:\n%s\nkamailio:\n%s", tail(a.SIPTrace()), tail(kam.Log()))
		}
	})
	a.waitRegistered()
	out, err := a.Dial(bg, "sips:bob@"+kam.TLSAddr(), "")
	must(t, err)
	in := bob.waitState("", StateRingingIn, 10*time.Second)
	a.waitState(out.ID, StateRingingOut, 10*time.Second)
	must(t, a.Hangup(bg, out.ID))
	evs := bob.callEvents(in.ID, 10*time.Second)
	if end := evs[len(evs)-1].Call; end.Reason != ReasonCancelled {
		t.Fatalf("bob's call after alice hung up while it rang: %+v", end)
	}
	if !strings.Contains(a.SIPTrace(), "CANCEL sips:bob@") {
		t.Fatalf("no CANCEL in alice's trace:\n%s", tail(a.SIPTrace()))
	}
}
