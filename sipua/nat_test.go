package sipua

import (
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/audio"
	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// TestNATThroughRouter: the phone (10.0.0.2, this namespace) behind a
// masquerading router (203.0.113.1) registers with kamailio on the other
// side (203.0.113.2), with coturn there as its STUN server. kamailio logs
// what the phone told it: the Contact of its REGISTER and the c=/m= of its
// SDP must be the router's public address (STUN from the SIP and RTP
// sockets, rport as well), never 10.0.0.2. bob calls in (kamailio reaches
// the phone only through the public Contact and the NAT binding the
// keep-alives hold; without STUN, rport alone gets this far), the phone
// calls carol out, and joins both: bob hears
// carol's 1000 Hz and carol bob's 440 Hz, both through the NAT. Then the
// router's public address changes: the keep-alives' STUN notices, the new
// Contact is registered and bob's next call gets through.
func TestNATThroughRouter(t *testing.T) {
	for _, tc := range []struct {
		name string
		stun bool
	}{{"stun", true}, {"rport-only", false}} {
		t.Run(tc.name, func(t *testing.T) {
			nat := testpeer.StartNAT(t)
			stunPort := testpeer.Coturn(t, nat.In(), nat.OutsideIP, 3478)
			kam := testpeer.KamailioIn(t, nat.In(), nat.OutsideIP)
			peer := func(user, pass string, hz float64, codec string) *testpeer.Baresip {
				return testpeer.StartBaresip(t, testpeer.BaresipOpts{User: user, Pass: pass, Registrar: kam.Addr(),
					AutoAnswer: true, Tone: hz, Codecs: []string{codec}, IP: nat.OutsideIP, Prefix: nat.In()})
			}
			bob := peer("bob", "bobpw", 440, "PCMU/8000/1")
			carol := peer("carol", "carolpw", 1000, "PCMA/8000/1")
			acc := account(kam, "alice", "udp")
			acc.Domain = nat.OutsideIP
			if tc.stun {
				acc.StunServer = nat.OutsideIP + ":" + itoa(stunPort)
			}
			a := startPhoneWith(t, store.Settings{SIP: store.SIPSettings{Listen: "0.0.0.0:0", AutoAnswer: true},
				Accounts: []store.Account{acc}}, secretMap{"account:" + acc.ID: "alicepw"}, nil, withAudioCfg(t, audio.EngineConfig{BindIP: "0.0.0.0"}),
				func(c *Config) { c.KeepAliveUDP = 500 * time.Millisecond }) // STUN asks again with each keep-alive
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("phone's SIP trace:\n%s\nkamailio:\n%s", tail(a.SIPTrace()), tail(kam.Log()))
				}
			})
			a.waitRegistered()
			pub := "@" + nat.PublicIP + ":" // the Contact's user is the phone's own (callers.go)
			// Without STUN the first REGISTER names 10.0.0.2; the answer's
			// received/rport (RFC 3581) makes the next one name the router.
			if !testpeer.WaitFor(10*time.Second, func() bool {
				for _, l := range strings.Split(kam.Log(), "\n") {
					if strings.Contains(l, "seen REGISTER contact=<sip:") && strings.Contains(l, pub) {
						return true
					}
				}
				return false
			}) {
				t.Fatalf("kamailio never got the public Contact %s", pub)
			}
			if tc.stun && strings.Contains(kam.Log(), "@"+nat.InsideIP) {
				t.Fatalf("with STUN a REGISTER still named the inside address")
			}

			capt := testpeer.CapturePackets(t, "nat-i0")
			_, err := bob.Ctrl("dial", "sip:alice@"+kam.Addr())
			must(t, err)
			c1 := a.waitState("", StateActive, 15*time.Second)
			if !tc.stun {
				// rport fixes SIP only: the SDP still names 10.0.0.2, which
				// the outside cannot reach (that is what STUN is for).
				must(t, a.Hangup(bg, c1.ID))
				return
			}
			c2 := callBob(t, a, "carol")
			must(t, a.Conference(bg, c1.ID, c2.ID))
			time.Sleep(2 * time.Second) // two seconds of audio to record: nothing to await
			must(t, a.Hangup(bg, c1.ID))
			must(t, a.Hangup(bg, c2.ID))
			heardTone(t, "carol (bob's audio that reached the phone through the NAT)", carol, 440)
			// What bob was sent, read off the wire inside the NAT (baresip's
			// recorder keeps silence after the hold that dialling carol
			// puts on bob's call): PCMU from us to bob, carol's tone.
			pkts := capt.Stop()
			toBob := testpeer.PacketPayloads(pkts, func(k string) bool {
				return strings.HasPrefix(k, nat.InsideIP+":") && strings.Contains(k, "-> "+nat.OutsideIP+":") && strings.HasSuffix(k, "pt 0")
			}, nil)
			var all [][]byte
			for _, p := range toBob {
				all = append(all, p...)
			}
			if tone := testpeer.G711Tone(all, false); tone.RMS < 0.05 || tone.Hz < 990 || tone.Hz > 1010 {
				t.Fatalf("the phone sent bob %+v (%d streams), want carol's 1000 Hz", tone, len(toBob))
			}

			// What kamailio was told: the answer to bob and the offer to
			// carol both name the public address in c= and m=.
			// (each log entry runs from "seen " to the SDP's closing "]")
			var sdps []string
			for _, e := range strings.Split(kam.Log(), "seen ")[1:] {
				e, _, _ = strings.Cut(e, "]")
				if !strings.Contains(strings.SplitN(e, "\n", 2)[0], "@"+nat.OutsideIP) {
					sdps = append(sdps, "seen "+e)
				}
			}
			var offer, answer bool
			for _, l := range sdps {
				if strings.Contains(l, "sdp=[v=0") {
					switch {
					case strings.HasPrefix(l, "seen INVITE"):
						offer = true
					case strings.HasPrefix(l, "seen reply 200"):
						answer = true
					}
					if !strings.Contains(l, "c=IN IP4 "+nat.PublicIP) || strings.Contains(l, nat.InsideIP) {
						t.Errorf("kamailio saw our SDP with another address than %s: %s", nat.PublicIP, l)
					}
				}
				if !strings.Contains(l, pub) {
					t.Errorf("kamailio saw a Contact other than %s: %s", pub, l)
				}
			}
			if !offer || !answer {
				t.Fatalf("kamailio logged no offer (%v) or answer (%v) of ours: %q", offer, answer, sdps)
			}

			// The router comes back with another public address: the next
			// keep-alive's STUN answer names it, the phone registers it at
			// once, and bob's next call reaches the phone through it.
			nat.Renumber(t, "203.0.113.3")
			if !testpeer.WaitFor(10*time.Second, func() bool {
				for _, e := range strings.Split(kam.Log(), "seen ")[1:] {
					if strings.HasPrefix(e, "REGISTER contact=<sip:sp") && strings.Contains(strings.SplitN(e, "\n", 2)[0], "@203.0.113.3:") {
						return true
					}
				}
				return false
			}) {
				t.Fatal("the new public address was not registered")
			}
			_, err = bob.Ctrl("dial", "sip:alice@"+kam.Addr())
			must(t, err)
			c3 := a.wait("bob's call after the new address", 15*time.Second, func(e Event) bool {
				return e.Call.ID != "" && e.Call.ID != c1.ID && e.Call.ID != c2.ID && e.Call.State == StateActive
			}).Call
			must(t, a.Hangup(bg, c3.ID))
		})
	}
}

// withAudioCfg is withAudio with the engine's config (its Home and Logger
// are filled in).
func withAudioCfg(t *testing.T, cfg audio.EngineConfig) func(*Config) {
	return func(c *Config) {
		cfg.Home, cfg.Logger = t.TempDir(), testLogger()
		e, err := audio.NewEngine(cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = e.Close() })
		c.Media = e
	}
}
