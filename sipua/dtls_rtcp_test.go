package sipua

import (
	"testing"
	"time"

	"github.com/softphone/softphone/audio"
	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// TestDTLSSRTCPWithBaresip: baresip's dtls_srtp without rtcp-mux makes a
// second DTLS association on the RTCP ports (RFC 5764 4.1); the phone
// answers it and both exchange SRTCP with its keys: the phone learns the
// round-trip time from baresip's receiver reports, which only decrypted
// reports (ours to baresip, baresip's to us) can give.
func TestDTLSSRTCPWithBaresip(t *testing.T) {
	kam := testpeer.Kamailio(t)
	testpeer.StartBaresip(t, testpeer.BaresipOpts{User: "bob", Pass: "bobpw", Registrar: kam.Addr(),
		AutoAnswer: true, Tone: 440, MediaEnc: "dtls_srtp", Codecs: []string{"PCMU/8000/1"}})
	acc := account(kam, "alice", "udp")
	acc.MediaEncryption = store.MediaEncryptionDTLS
	a := startPhoneWith(t, store.Settings{SIP: store.SIPSettings{Listen: "127.0.0.1:0"}, Accounts: []store.Account{acc}},
		secretMap{"account:" + acc.ID: "alicepw"}, nil,
		withAudioCfg(t, audio.EngineConfig{RTCPInterval: 500 * time.Millisecond}))
	a.waitRegistered()
	c := callBob(t, a, "bob")
	if !c.Secure {
		t.Fatalf("call not secure: %+v", c)
	}
	a.mu.Lock()
	ms := a.calls[c.ID].media
	a.mu.Unlock()
	s, ok := ms.(audioSession)
	if !ok {
		t.Fatalf("media %T", ms)
	}
	// baresip reports every few seconds: wait for its first report on ours.
	if !testpeer.WaitFor(20*time.Second, func() bool { return s.Stats().RTT > 0 }) {
		t.Fatalf("no round-trip time from baresip's SRTCP: %+v", s.Stats())
	}
	t.Logf("RTT %.2f ms over SRTCP", s.Stats().RTT)
	must(t, a.Hangup(bg, c.ID))
}
