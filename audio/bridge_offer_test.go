package audio

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// TestBridgeAnswersChromeOffer feeds the offer Chromium 156 made (captured
// headless inside unshare -n with --allow-loopback-in-peer-connection) and
// checks the answer: our codec priority first, telephone-event kept,
// candidates on 127.0.0.1 only, and ICE-lite.
func TestBridgeAnswersChromeOffer(t *testing.T) {
	offer, err := os.ReadFile("testdata/chrome_offer.sdp")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		prio  []string
		first string
	}{
		{nil, "0"},                        // default PCMU first
		{[]string{"G722", "PCMU"}, "9"},   // G.722 first
		{[]string{"opus", "PCMA"}, "111"}, // Opus first
		{[]string{"PCMA", "opus", "G722"}, "8"},
	} {
		e, err := NewEngine(EngineConfig{Codecs: tc.prio})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		answer, err := e.Bridge().Offer(ctx, "chrome", strings.ReplaceAll(string(offer), "\n", "\r\n"))
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		var mline string
		for _, l := range strings.Split(answer, "\r\n") {
			if strings.HasPrefix(l, "m=audio") {
				mline = l
			}
			if strings.HasPrefix(l, "a=candidate") && !strings.Contains(l, " 127.0.0.1 ") {
				t.Errorf("candidate not on loopback: %s", l)
			}
		}
		f := strings.Fields(mline)
		if len(f) < 4 || f[3] != tc.first {
			t.Errorf("prio %v: m-line %q, want payload type %s first", tc.prio, mline, tc.first)
		}
		for _, want := range []string{"a=candidate:", "a=ice-lite", "telephone-event/8000"} {
			if !strings.Contains(answer, want) {
				t.Errorf("answer lacks %q:\n%s", want, answer)
			}
		}
		if e.Bridge().Attached() {
			t.Error("attached before any connection")
		}
		e.Close()
	}
}

func TestBridgeRefusesOfferWithoutOurCodecs(t *testing.T) {
	e := newTestEngine(t)
	offer := "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 97\r\nc=IN IP4 0.0.0.0\r\na=rtpmap:97 iLBC/8000\r\n"
	if _, err := e.Bridge().Offer(context.Background(), "x", offer); err == nil {
		t.Fatal("an offer with only iLBC was answered")
	}
	if _, err := e.Bridge().Offer(context.Background(), "x", "not sdp"); err == nil {
		t.Fatal("garbage was answered")
	}
}
