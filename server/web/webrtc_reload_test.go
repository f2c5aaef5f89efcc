package web

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gobwas/ws/wsutil"
	"github.com/pion/webrtc/v4"
	"github.com/pion/webrtc/v4/pkg/media"

	"github.com/softphone/softphone/internal/testpeer"
)

// fakePage plays a phone page's WebRTC side: a pion PeerConnection that
// offers PCMU through POST /webrtc/offer, as rtc.ts does, and sends its
// microphone (20 ms of PCMU silence at the microphone's pace) once connected.
// It returns the connection's name from the answer (what the close beacon
// sends back).
func fakePage(t *testing.T, r *rig, tab string) (pc *webrtc.PeerConnection, conn string) {
	t.Helper()
	pcmu := webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypePCMU, ClockRate: 8000}
	pc = testpeer.LoopbackPeer(t, webrtc.RTPCodecParameters{RTPCodecCapability: pcmu, PayloadType: 0})
	mic, err := webrtc.NewTrackLocalStaticSample(pcmu, "mic", "page")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pc.AddTrack(mic); err != nil {
		t.Fatal(err)
	}
	testpeer.Connect(t, pc, func(offer string) string {
		body, _ := json.Marshal(map[string]string{"tab": tab, "sdp": offer})
		res, text := r.do("POST", "/webrtc/offer", strings.NewReader(string(body)), map[string]string{
			"Content-Type": "application/json", "Origin": r.origin, "Sec-Fetch-Site": "same-origin", "X-CSRF-Token": r.csrf})
		if res.StatusCode != 200 {
			t.Fatalf("offer: %d %s", res.StatusCode, text)
		}
		var ans struct{ SDP, Conn string }
		if err := json.Unmarshal([]byte(text), &ans); err != nil || ans.Conn == "" {
			t.Fatalf("answer without a connection name: %s", text)
		}
		conn = ans.Conn
		return ans.SDP
	})
	go func() {
		frame := make([]byte, 160)
		for i := range frame {
			frame[i] = 0xff // PCMU silence
		}
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for range tick.C {
			if pc.ConnectionState() == webrtc.PeerConnectionStateClosed {
				return
			}
			_ = mic.WriteSample(media.Sample{Data: frame, Duration: 20 * time.Millisecond})
		}
	}()
	return pc, conn
}

// beacon is the close beacon phone.ts sends on pagehide.
func beacon(t *testing.T, r *rig, tab, conn string) {
	t.Helper()
	res, body := r.do("POST", "/webrtc/close", strings.NewReader(url.Values{"tab": {tab}, "conn": {conn}, "csrf": {r.csrf}}.Encode()),
		map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Origin": r.origin, "Sec-Fetch-Site": "same-origin"})
	if res.StatusCode/100 != 2 {
		t.Fatalf("close beacon: %d %s", res.StatusCode, body)
	}
}

// TestWebRTCReloadLateBeacon: a page reloaded during a call keeps its tab
// id; the old page's close beacon, arriving after the new page connected,
// leaves the new page's audio alone, and the new page's own beacon closes it.
func TestWebRTCReloadLateBeacon(t *testing.T) {
	r, b := audioRig(t)
	const tab = "tab-reload-rtc-1"
	live := func() bool { id, ok := b.Holder(); return id == tab && ok }
	old, oldConn := fakePage(t, r, tab)
	waitFor(t, "the old page's audio to flow", live)
	// The reload: the new page connects, then the old page's beacon arrives.
	_, newConn := fakePage(t, r, tab)
	if newConn == oldConn {
		t.Fatal("two connections share a name")
	}
	old.Close()
	waitFor(t, "the new page's audio to flow", live)
	beacon(t, r, tab, oldConn)
	beacon(t, r, tab, "") // a beacon naming no connection
	// The handler closes synchronously: its answer means the bridge is settled.
	if id, ok := b.Holder(); id != tab || !ok {
		t.Fatalf("the old page's late beacon closed the reloaded page's audio: holder %q live %v", id, ok)
	}
	beacon(t, r, tab, newConn)
	if id, _ := b.Holder(); id != "" {
		t.Fatalf("the page's own beacon left its connection: holder %q", id)
	}
}

// TestWebRTCReloadLateBeaconFallback: the reloaded page carries its audio
// over its socket (WebRTC cannot connect there); the old page's late beacon
// for its WebRTC connection leaves that fallback alone.
func TestWebRTCReloadLateBeaconFallback(t *testing.T) {
	r, b := audioRig(t)
	const tab = "tab-reload-rtc-2"
	old, oldConn := fakePage(t, r, tab)
	waitFor(t, "the old page's audio to flow", func() bool { id, ok := b.Holder(); return id == tab && ok })
	sock, err := r.dialSocket(tab, r.origin, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{`{"state":"ready","focus":true}`, `{"audio":"pcm"}`} {
		if err := wsutil.WriteClientText(sock, []byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	old.Close()
	if err := wsutil.WriteClientBinary(sock, make([]byte, 640)); err != nil {
		t.Fatal(err)
	}
	// The old WebRTC connection may still show as attached until the
	// socket's {"audio":"pcm"} is handled, which forgets its name: wait for
	// that (the late beacon is the one after it).
	waitFor(t, "the fallback to replace the WebRTC connection", func() bool {
		r.srv.rtc.mu.Lock()
		defer r.srv.rtc.mu.Unlock()
		return r.srv.rtc.ids[tab] == ""
	})
	waitFor(t, "the fallback's audio to flow", b.Attached)
	beacon(t, r, tab, oldConn)
	if !b.Attached() {
		t.Fatal("the old page's late beacon closed the reloaded page's fallback")
	}
}
