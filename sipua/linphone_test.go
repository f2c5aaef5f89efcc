package sipua

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/audio"
	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// TestSRTPWithLinphone: calls out and in between the phone (SDES,
// RTP/SAVP) and linphonec with mandatory SRTP, through kamailio. The phone joins the
// call with a PCMA call to carol (baresip; SRTP too when the phone requires it) in a conference: carol
// hears linphone's 440 Hz only through the phone's decryption, and what
// linphone is sent (read off the wire, decrypted with the key of the
// phone's SDP) carries carol's 1000 Hz only through its encryption. The
// capture shows linphone's PCMU streams encrypted both ways.
func TestSRTPWithLinphone(t *testing.T) {
	for _, incoming := range []bool{false, true} {
		name := map[bool]string{false: "out", true: "in"}[incoming]
		t.Run(name, func(t *testing.T) {
			kam := testpeer.Kamailio(t)
			lin := testpeer.StartLinphone(t, testpeer.LinphoneOpts{User: "bob", Pass: "bobpw", Registrar: kam.Addr(), SRTP: true})
			// carol takes SRTP when the phone requires it (calls out, below)
			carolEnc := map[bool]string{false: "srtp", true: ""}[incoming]
			carol := testpeer.StartBaresip(t, testpeer.BaresipOpts{User: "carol", Pass: "carolpw", Registrar: kam.Addr(),
				AutoAnswer: true, Tone: 1000, Codecs: []string{"PCMA/8000/1"}, MediaEnc: carolEnc})
			db, err := store.OpenDB(filepath.Join(t.TempDir(), "softphone.db"))
			must(t, err)
			t.Cleanup(func() { _ = db.Close() })
			// linphone with mandatory SRTP refuses RTP/AVP + a=crypto (488): the
			// phone offers RTP/SAVP when the account requires encryption.
			acc := secureAccount(kam, !incoming)
			a := startPhoneWith(t, store.Settings{SIP: store.SIPSettings{Listen: "127.0.0.1:0", AutoAnswer: true},
				Accounts: []store.Account{acc}}, secretMap{"account:" + acc.ID: "alicepw"}, db,
				withAudioCfg(t, audio.EngineConfig{Codecs: []string{"PCMU", "PCMA"}})) // G.711 only: the streams are judged as such
			a.waitRegistered()
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("phone's SIP trace:\n%s\nlinphone:\n%s", tail(a.SIPTrace()), tail(lin.Log()))
				}
			})
			capt := testpeer.CapturePackets(t, "lo")
			var c1 Call
			if incoming {
				lin.Cmd("call sip:alice@" + kam.Addr())
				c1 = a.waitState("", StateActive, 15*time.Second)
			} else {
				c1 = callBob(t, a, "bob")
			}
			if !c1.Secure {
				t.Fatalf("call with linphone not secure: %+v", c1)
			}
			c2 := callBob(t, a, "carol")
			must(t, a.Conference(bg, c1.ID, c2.ID))
			time.Sleep(2 * time.Second) // two seconds of audio to record: nothing to await
			must(t, a.Hangup(bg, c1.ID))
			must(t, a.Hangup(bg, c2.ID))
			heardTone(t, "carol (linphone's SRTP decrypted by the phone)", carol, 440)
			pkts := capt.Stop()

			ours := sdpPorts(a.SIPTrace())
			heard := false
			for k, tone := range sentToneSRTP(t, pkts, ours) {
				t.Logf("decrypted %s: %+v", k, tone)
				heard = heard || (tone.RMS > 0.05 && tone.Hz > 990 && tone.Hz < 1010)
			}
			if !heard {
				t.Fatal("no SRTP PCMU stream decrypted with its SDP key carries carol's 1000 Hz: linphone was not sent her tone")
			}
			streams := testpeer.JudgePackets(pkts, testpeer.UlawOfTone(440))
			enc := 0
			for _, s := range streams {
				if !ours(s.Key) || !strings.HasSuffix(s.Key, "pt 0") {
					continue
				}
				t.Log(s)
				if s.Clear {
					t.Errorf("clear PCMU on the wire: %s", s)
				}
				enc++
			}
			if enc < 2 {
				t.Fatalf("%d encrypted PCMU streams with linphone, want both ways", enc)
			}
		})
	}
}
