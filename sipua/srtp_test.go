package sipua

import (
	"encoding/base64"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pion/srtp/v3"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// secureAccount is alice on kamailio with SDES media encryption.
func secureAccount(kam *testpeer.Kam, required bool) store.Account {
	a := account(kam, "alice", "udp")
	a.MediaEncryption, a.MediaEncryptionRequired = store.MediaEncryptionSDES, required
	return a
}

// heardTone checks the tone of baresip's recording of what it heard in
// its last call, once the call has ended (sndfile writes it out then).
func heardTone(t *testing.T, who string, b *testpeer.Baresip, hz float64) {
	t.Helper()
	if !b.WaitLog("terminated", 10*time.Second) {
		t.Fatalf("%s saw no end of call:\n%s", who, tail(b.Log()))
	}
	var heard testpeer.Tone
	ok := testpeer.WaitFor(5*time.Second, func() bool {
		r := b.Recordings()
		if len(r) == 0 {
			return false
		}
		var err error
		heard, err = testpeer.AnalyseFile(r[len(r)-1], 0)
		return err == nil && heard.RMS > 0.05
	})
	if !ok || heard.Hz < hz-10 || heard.Hz > hz+10 {
		t.Fatalf("%s heard %+v, want %.0f Hz:\n%s", who, heard, hz, tail(b.Log()))
	}
}

// sentToneSRTP says which tone the SRTP PCMU streams of a capture carry, each
// decrypted with the key its sender put in its SDP (the a=crypto lines on
// the wire in the clear SIP to kamailio; pion/srtp): the loudest one.
// It reads what bob was sent off the wire: baresip 1.0's recorder keeps
// silence after the phone holds and resumes bob's call (whatever was
// sent), so its file cannot tell.
func sentToneSRTP(t *testing.T, pkts []testpeer.Packet, ours func(string) bool) map[string]testpeer.Tone {
	t.Helper()
	cryptos := testpeer.PacketCryptos(pkts)
	profiles := map[string]srtp.ProtectionProfile{
		"AES_CM_128_HMAC_SHA1_80": srtp.ProtectionProfileAes128CmHmacSha1_80,
		"AES_CM_128_HMAC_SHA1_32": srtp.ProtectionProfileAes128CmHmacSha1_32,
		"AEAD_AES_128_GCM":        srtp.ProtectionProfileAeadAes128Gcm,
	}
	for _, c := range cryptos {
		t.Logf("a=crypto in the capture: m= port %s, %s", c.MediaPort, c.Suite) // not the key
	}
	ctxs := map[string]*srtp.Context{}
	fails := map[string]string{}
	defer func() {
		for k, e := range fails {
			t.Logf("%s: %s", k, e)
		}
	}()
	decrypt := func(key string, pkt []byte) ([]byte, error) {
		src := strings.SplitN(strings.SplitN(key, " ", 2)[0], ":", 2)[1]
		for _, c := range cryptos {
			p, ok := profiles[c.Suite]
			if c.MediaPort != src || !ok {
				continue
			}
			ctx := ctxs[key+c.Inline]
			if ctx == nil {
				raw, err := base64.StdEncoding.DecodeString(c.Inline)
				kl, _ := p.KeyLen()
				if err != nil || len(raw) < kl {
					continue
				}
				if ctx, err = srtp.CreateContext(raw[:kl], raw[kl:], p); err != nil {
					continue
				}
				ctxs[key+c.Inline] = ctx
			}
			if out, err := ctx.DecryptRTP(nil, pkt, nil); err == nil {
				return out, nil
			}
		}
		fails[key] = "no key of port " + src + " opens it"
		return nil, fmt.Errorf("no key of port %s opens it", src)
	}
	pl := testpeer.PacketPayloads(pkts, func(k string) bool { return ours(k) && strings.HasSuffix(k, "pt 0") }, decrypt)
	res := map[string]testpeer.Tone{}
	for k, p := range pl {
		res[k] = testpeer.G711Tone(p, false)
	}
	return res
}

// TestSRTPWithBaresip: calls out and in between the phone (SDES) and
// baresip with mediaenc srtp (RTP/AVP + a=crypto) and srtp-mand
// (RTP/SAVP). The phone joins the call with a clear PCMA call to carol in
// a conference, so bob (PCMU, SRTP) hears carol's 1000 Hz only through the
// phone's encryption and carol hears bob's 440 Hz only through its
// decryption; then bob is held and resumed. The capture shows the PCMU streams encrypted, the clear PCMA
// stream clear (the check can fail), and the SIP trace shows no key.
func TestSRTPWithBaresip(t *testing.T) {
	for _, tc := range []struct {
		name, enc string
		required  bool
		incoming  bool
		proto     string
		holdToo   bool
		suite     string // the only suite we offer; "" all (baresip offers in calls in)
		size      int    // UDP payload of a 20 ms PCMU packet: 172 + the suite's tag
	}{
		{"out-srtp", "srtp", false, false, "RTP/AVP", false, "AES_CM_128_HMAC_SHA1_32", 176},
		{"out-srtp-mand", "srtp-mand", true, false, "RTP/SAVP", true, "AEAD_AES_128_GCM", 188},
		{"in-srtp", "srtp", false, true, "RTP/AVP", false, "", 182},
		{"in-srtp-mand", "srtp-mand", false, true, "RTP/SAVP", false, "", 182},
		// DTLS-SRTP: baresip's dtls_srtp (UDP/TLS/RTP/SAVP, a=fingerprint).
		{"out-dtls", "dtls_srtp", false, false, "UDP/TLS/RTP/SAVP", false, "", 0},
		{"in-dtls", "dtls_srtp", false, true, "UDP/TLS/RTP/SAVP", false, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.suite != "" {
				onlySuite(t, tc.suite)
			}
			kam := testpeer.Kamailio(t)
			bob := testpeer.StartBaresip(t, testpeer.BaresipOpts{User: "bob", Pass: "bobpw", Registrar: kam.Addr(),
				AutoAnswer: true, Tone: 440, MediaEnc: tc.enc, Codecs: []string{"PCMU/8000/1"}})
			// carol is clear, unless alice encrypts every call: with required
			// SDES (RTP/SAVP) or with DTLS-SRTP (no clear fallback in RFC 5763).
			carolEnc, carolSecure := "", tc.required || tc.enc == "dtls_srtp"
			switch {
			case tc.enc == "dtls_srtp":
				carolEnc = "dtls_srtp"
			case tc.required:
				carolEnc = "srtp"
			}
			carol := testpeer.StartBaresip(t, testpeer.BaresipOpts{User: "carol", Pass: "carolpw", Registrar: kam.Addr(),
				AutoAnswer: true, Tone: 1000, Codecs: []string{"PCMA/8000/1"}, MediaEnc: carolEnc})
			db, err := store.OpenDB(filepath.Join(t.TempDir(), "softphone.db"))
			must(t, err)
			t.Cleanup(func() { _ = db.Close() })
			acc := secureAccount(kam, tc.required)
			dtls := tc.enc == "dtls_srtp"
			if dtls {
				acc.MediaEncryption = store.MediaEncryptionDTLS
			}
			a := startPhoneWith(t, store.Settings{SIP: store.SIPSettings{Listen: "127.0.0.1:0", AutoAnswer: true},
				Accounts: []store.Account{acc}}, secretMap{"account:" + acc.ID: "alicepw"}, db, withAudio(t))
			a.waitRegistered()
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("phone's SIP trace:\n%s\nbob:\n%s", tail(a.SIPTrace()), tail(bob.Log()))
				}
			})
			capt := testpeer.CapturePackets(t, "lo")

			var c1 Call
			if tc.incoming {
				_, err := bob.Ctrl("dial", "sip:alice@"+kam.Addr())
				must(t, err)
				c1 = a.waitState("", StateActive, 10*time.Second)
			} else {
				c1 = callBob(t, a, "bob")
			}
			if !c1.Secure {
				t.Fatalf("call with bob not secure: %+v", c1)
			}
			c2 := callBob(t, a, "carol")
			if c2.Secure != carolSecure {
				t.Fatalf("call with carol: secure %v, want %v", c2.Secure, carolSecure)
			}
			must(t, a.Conference(bg, c1.ID, c2.ID))
			if cs, ok := a.Call(c1.ID); !ok || !cs.Secure {
				t.Fatalf("call after hold and conference: %+v", cs)
			}
			time.Sleep(2 * time.Second) // two seconds of audio to record: nothing to await
			must(t, a.Hangup(bg, c1.ID))
			must(t, a.Hangup(bg, c2.ID))
			// carol hears bob's tone only through the phone's decryption of
			// bob's SRTP and, with DTLS (carol too is DTLS-SRTP then), its
			// encryption toward her.
			heardTone(t, "carol (bob's SRTP decrypted by the phone)", carol, 440)
			if dtls {
				// What bob was sent cannot be decrypted from the capture
				// (DTLS keys), and his recording is silent when baresip 1.0
				// restarts its player as the call's second DTLS association
				// (RTCP's, RFC 5764 4.1) completes after the first: told,
				// not judged. carol's ear above proves our DTLS-SRTP
				// encryption by content.
				if r := bob.Recordings(); len(r) > 0 {
					heard, err := testpeer.AnalyseFile(r[len(r)-1], 0)
					t.Logf("bob's recording (not judged): %+v %v", heard, err)
				}
			}
			// The history says which call was encrypted.
			secure := map[string]bool{}
			testpeer.WaitFor(10*time.Second, func() bool {
				hs, err := db.ListHistory(bg, store.HistoryFilter{})
				for _, h := range hs {
					if !h.Open {
						secure[h.CallID] = h.Secure
					}
				}
				return err == nil && len(secure) == 2
			})
			if s1, s2 := secure[c1.ID], secure[c2.ID]; !s1 || s2 != carolSecure {
				t.Fatalf("history secure: bob's call %v, carol's %v (entries %v)", s1, s2, secure)
			}
			if tc.holdToo {
				holdResumeThenConference(t, a, bob, carol)
			}
			pkts := capt.Stop()
			if !dtls {
				// What bob was sent after the hold/resume, by content.
				ours := sdpPorts(a.SIPTrace())
				heard := false
				for k, tone := range sentToneSRTP(t, pkts, ours) {
					t.Logf("decrypted %s: %+v", k, tone)
					heard = heard || (tone.RMS > 0.05 && tone.Hz > 990 && tone.Hz < 1010)
				}
				if !heard {
					t.Fatal("no SRTP PCMU stream decrypted with its SDP key carries carol's 1000 Hz: bob was not sent her tone")
				}
			}

			streams := testpeer.JudgePackets(pkts, testpeer.UlawOfTone(440))
			// Only this test's calls: other packages' tests run beside it on
			// the same loopback (clear PCMU of their own tones).
			ours := sdpPorts(a.SIPTrace())
			var enc, clear int
			mine := sentSDPPorts(a.SIPTrace())
			for _, s := range streams {
				if !ours(s.Key) {
					continue
				}
				t.Log(s)
				switch {
				case strings.HasSuffix(s.Key, "pt 0") && s.Clear && !mine(s.Key) && s.Untagged < s.Packets:
					// baresip's dtls_srtp starts its audio when the first of
					// the call's two DTLS associations completes: when that is
					// RTCP's, it sends clear RTP until its RTP keys are there
					// (the phone drops it: nothing clear is played). Its fault,
					// told; what the phone sends is judged strictly.
					t.Logf("the peer sent %d clear packets before SRTP: %s", s.Untagged, s)
					enc++
				case strings.HasSuffix(s.Key, "pt 0") && s.Clear:
					t.Errorf("clear PCMU on the wire: %s", s)
				case strings.HasSuffix(s.Key, "pt 0"):
					enc++
					if tc.size != 0 && s.PayloadSz[tc.size] < s.Packets*9/10 {
						t.Errorf("SRTP packet sizes %v, want %d (the suite's tag)", s.PayloadSz, tc.size)
					}
				case strings.HasSuffix(s.Key, "pt 8") && s.Clear:
					clear++
				}
			}
			if enc < 2 || (clear < 2 && !carolSecure) {
				t.Fatalf("%d encrypted PCMU streams (want both ways), %d clear PCMA streams (want 2: the check sees clear audio)", enc, clear)
			}
			tr := a.SIPTrace()
			keyAttr := map[bool]string{false: "a=crypto:", true: "a=fingerprint:sha-256"}[dtls]
			if !strings.Contains(tr, "m=audio") || !strings.Contains(tr, tc.proto) || !strings.Contains(tr, keyAttr) {
				t.Fatalf("trace lacks the SRTP offer/answer in %s with %s", tc.proto, keyAttr)
			}
			if strings.Contains(tr, "inline:") {
				t.Fatal("SRTP keys in the SIP trace")
			}
		})
	}
}

// sentSDPPorts is sdpPorts of the SDPs the phone sent, tested on the
// stream's source: whether the phone sent the stream.
func sentSDPPorts(trace string) func(key string) bool {
	var sent []string
	for _, m := range strings.Split(trace, "=== ")[1:] {
		if head, body, _ := strings.Cut(m, "\n"); strings.Contains(head, " sent ") {
			sent = append(sent, body)
		}
	}
	has := sdpPorts(strings.Join(sent, "\n"))
	return func(key string) bool { return has(strings.Split(key, " -> ")[0] + " -> none") }
}

// sdpPorts gives a test of whether a stream key ("ip:port -> ip:port pt N")
// has an end at a port some SDP in trace named (m=audio PORT).
func sdpPorts(trace string) func(key string) bool {
	ports := map[string]bool{}
	for _, l := range strings.Split(trace, "\n") {
		if f := strings.Fields(strings.TrimSpace(l)); len(f) > 1 && f[0] == "m=audio" {
			ports[f[1]] = true
		}
	}
	return func(key string) bool {
		for _, end := range strings.Split(strings.Split(key, " pt ")[0], " -> ") {
			if i := strings.LastIndexByte(end, ':'); i >= 0 && ports[end[i+1:]] {
				return true
			}
		}
		return false
	}
}

// onlySuite makes the phone offer one SDES suite for the rest of the test
// (registered before the phone starts, so it is restored after it stops).
func onlySuite(t *testing.T, name string) {
	saved := sdesSuites
	t.Cleanup(func() { sdesSuites = saved })
	for _, s := range saved {
		if s.name == name {
			sdesSuites = append(sdesSuites[:0:0], s)
			return
		}
	}
	t.Fatalf("no suite %s", name)
}

// holdResumeThenConference: a second call with bob is held and resumed
// (our re-INVITEs repeat the agreed crypto line), stays secure, and bob's
// SRTP is still decrypted afterwards: carol hears his tone in a conference.
// (baresip 1.0.0 stops recording at a hold, so bob's ears are not checked.)
func holdResumeThenConference(t *testing.T, a *tphone, bob, carol *testpeer.Baresip) {
	t.Helper()
	c1 := callBob(t, a, "bob")
	must(t, a.Hold(bg, c1.ID))
	a.waitState(c1.ID, StateHold, 5*time.Second)
	must(t, a.Resume(bg, c1.ID))
	if cs := a.waitState(c1.ID, StateActive, 5*time.Second); !cs.Secure {
		t.Fatalf("call after hold and resume: %+v", cs)
	}
	n := len(carol.Recordings())
	c2 := callBob(t, a, "carol")
	must(t, a.Conference(bg, c1.ID, c2.ID))
	time.Sleep(2 * time.Second) // two seconds of audio to record: nothing to await
	must(t, a.Hangup(bg, c1.ID))
	must(t, a.Hangup(bg, c2.ID))
	if !testpeer.WaitFor(5*time.Second, func() bool { return len(carol.Recordings()) > n }) {
		t.Fatal("carol recorded no second call")
	}
	heardTone(t, "carol after bob's hold and resume", carol, 440)
}

// TestSRTPRequiredRefusesClear: an account that requires encryption
// answers a clear offer 488 without ringing, and hangs up an outgoing
// call whose answer is clear (reason not-encrypted, BYE sent).
func TestSRTPRequiredRefusesClear(t *testing.T) {
	t.Run("clear-offer", func(t *testing.T) {
		kam := testpeer.Kamailio(t)
		carol := testpeer.StartBaresip(t, testpeer.BaresipOpts{User: "carol", Pass: "carolpw", Registrar: kam.Addr()})
		a := startPhone(t, secureAccount(kam, true), "alicepw")
		a.waitRegistered()
		_, err := carol.Ctrl("dial", "sip:alice@"+kam.Addr())
		must(t, err)
		ev := a.wait("refused call", 10*time.Second, func(e Event) bool { return e.Call.State == StateEnded })
		if ev.Call.Reason != ReasonNotEncrypted || ev.Call.Outcome != OutcomeFailed || ev.Call.Direction != DirIn {
			t.Fatalf("refused call %+v", ev.Call)
		}
		if !carol.WaitLog("488", 5*time.Second) {
			t.Fatalf("carol got no 488:\n%s", tail(carol.Log()))
		}
		if strings.Contains(a.SIPTrace(), "180 Ringing") {
			t.Fatal("the clear call rang before it was refused")
		}
	})
	t.Run("clear-answer", func(t *testing.T) {
		port, wait := sippUAS(t, "uas_ring_answer.xml", "-m", "1")
		acc := sippAccount(t, port)
		acc.MediaEncryption, acc.MediaEncryptionRequired = store.MediaEncryptionSDES, true
		p := startPhone(t, acc, "")
		c, err := p.Dial(bg, "clear", "")
		must(t, err)
		evs := p.callEvents(c.ID, 10*time.Second)
		end := evs[len(evs)-1].Call
		if end.Reason != ReasonNotEncrypted || end.Outcome != OutcomeFailed || end.Secure {
			t.Fatalf("clear answer: %+v (states %v)", end, states(evs))
		}
		for _, e := range evs {
			if e.Call.State == StateActive {
				t.Fatal("the clear call went active")
			}
		}
		if !strings.Contains(p.SIPTrace(), "RTP/SAVP") {
			t.Fatal("required encryption did not offer RTP/SAVP")
		}
		wait() // sipp saw the BYE
	})
}
