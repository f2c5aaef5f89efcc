package sipua

import (
	"net"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/pion/rtp"
	"github.com/softphone/softphone/audio"
)

// TestSilentFarEndEndsCall: an answered call whose far end stops sending
// (no RTP, no RTCP: a PBX that vanished without a BYE) ends after the
// media timeout with reason media-timeout and a BYE; while the far end
// sends, or holds the call (and sends nothing, rightly), it goes on, and
// after a resume the silence counts anew. It stayed up for ever.
func TestSilentFarEndEndsCall(t *testing.T) {
	const timeout = time.Second
	media, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	must(t, err)
	defer media.Close()
	p, r := rawCallerPhoneWith(t, []func(*Config){withAudio(t), func(c *Config) { c.MediaTimeout = timeout }}, autoAnswer)
	r.mediaPort = media.LocalAddr().(*net.UDPAddr).Port
	ok := r.invite("")
	if statusOf(ok) != 200 {
		t.Fatalf("auto-answer: %.40q", ok)
	}
	r.ack(1, "")
	c := p.waitState("", StateActive, 5*time.Second)
	m := regexp.MustCompile(`m=audio (\d+) `).FindStringSubmatch(ok)
	if m == nil {
		t.Fatalf("no m=audio in the answer:\n%s", ok)
	}
	port, _ := strconv.Atoi(m[1])
	to := &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port}
	seq := uint16(0)
	// send plays the far end for d: a PCMU packet every 20 ms.
	send := func(d time.Duration) {
		tk := time.NewTicker(20 * time.Millisecond)
		defer tk.Stop()
		for end := time.Now().Add(d); time.Now().Before(end); <-tk.C {
			seq++
			pkt, _ := (&rtp.Packet{Header: rtp.Header{Version: 2, PayloadType: 0, SequenceNumber: seq,
				Timestamp: uint32(seq) * 160, SSRC: 0xfa2e}, Payload: make([]byte, 160)}).Marshal()
			_, _ = media.WriteToUDP(pkt, to)
		}
	}
	state := func() CallState { got, _ := p.Call(c.ID); return got.State }
	send(3 * timeout)
	if s := state(); s != StateActive {
		t.Fatalf("a far end that sends: the call is %s", s)
	}
	// The far end holds the call (sendonly) and sends nothing.
	br := r.inDialog("INVITE", "Content-Type: application/sdp\r\n", rawSDP(r.mediaPort, audio.SendOnly))
	if res := r.final(br); statusOf(res) != 200 {
		t.Fatalf("hold: %.40q", res)
	}
	r.ack(r.cseq, "")
	p.waitState(c.ID, StateOnHold, 5*time.Second)
	// Held three times the timeout, silent: the call goes on.
	for end := time.Now().Add(3 * timeout); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if s := state(); s != StateOnHold {
			t.Fatalf("held and silent: the call is %s", s)
		}
	}
	// Resumed, and still silent: it ends, a timeout after the resume (not
	// at once: the hold's silence does not count), with a BYE.
	br = r.inDialog("INVITE", "Content-Type: application/sdp\r\n", rawSDP(r.mediaPort, audio.SendRecv))
	if res := r.final(br); statusOf(res) != 200 {
		t.Fatalf("resume: %.40q", res)
	}
	resumed := time.Now()
	r.ack(r.cseq, "")
	ended := p.waitState(c.ID, StateEnded, 10*timeout)
	if after := time.Since(resumed); ended.Reason != ReasonMediaTimeout || ended.Outcome != OutcomeAnswered || after < timeout*9/10 {
		t.Fatalf("ended %s/%s %v after the resume, want %s/%s after at least %v", ended.Reason, ended.Outcome, after,
			ReasonMediaTimeout, OutcomeAnswered, timeout)
	}
	bye, found := r.requestFromPhone("BYE", 5*time.Second)
	if !found || header(bye, "Call-ID") != r.callID {
		t.Fatalf("no BYE for the silent call: %v", found)
	}
	r.answer(bye, "200 OK", "", "")
}

// TestMediaTimeoutFromSettings: the time comes from sip.media_timeout_s
// (0 there: never) unless Config.MediaTimeout overrides it (< 0: never).
func TestMediaTimeoutFromSettings(t *testing.T) {
	p := &Phone{}
	for _, tc := range []struct {
		cfg      time.Duration
		settings int
		want     time.Duration
	}{
		{0, 30, 30 * time.Second},
		{0, 0, 0},
		{0, 3600, time.Hour},
		{2 * time.Second, 0, 2 * time.Second},
		{2 * time.Second, 45, 2 * time.Second},
		{-1, 45, 0},
	} {
		p.mediaTimeout, p.settings.SIP.MediaTimeoutS = tc.cfg, tc.settings
		if got := p.mediaTimeoutNow(); got != tc.want {
			t.Errorf("Config %v, settings %d s: %v, want %v", tc.cfg, tc.settings, got, tc.want)
		}
	}
}
