package testpeer

import (
	"net"
	"sync"
	"testing"
	"time"

	"github.com/pion/webrtc/v4"
)

// LoopbackPeer is a pion PeerConnection standing in for a browser tab:
// it offers the given audio codecs and gathers IPv4 loopback candidates
// only (the tests run in a network namespace where only lo is up, and
// other interfaces would only slow ICE down). It is closed when the test
// ends.
func LoopbackPeer(t testing.TB, codecs ...webrtc.RTPCodecParameters) *webrtc.PeerConnection {
	t.Helper()
	m := &webrtc.MediaEngine{}
	for _, c := range codecs {
		if err := m.RegisterCodec(c, webrtc.RTPCodecTypeAudio); err != nil {
			t.Fatal(err)
		}
	}
	var se webrtc.SettingEngine
	se.SetIncludeLoopbackCandidate(true)
	se.SetIPFilter(func(ip net.IP) bool { return ip.IsLoopback() })
	se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4})
	pc, err := webrtc.NewAPI(webrtc.WithMediaEngine(m), webrtc.WithSettingEngine(se)).NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pc.Close() })
	return pc
}

// Connect makes pc's offer with all its candidates (no trickle: the
// phone's POST /webrtc/offer takes one complete SDP, as rtc.ts sends it),
// has answer turn it into the answer of the side under test, and waits
// until the connection is up.
func Connect(t testing.TB, pc *webrtc.PeerConnection, answer func(offer string) string) {
	t.Helper()
	connected := make(chan struct{})
	var once sync.Once
	pc.OnConnectionStateChange(func(s webrtc.PeerConnectionState) {
		if s == webrtc.PeerConnectionStateConnected {
			once.Do(func() { close(connected) })
		}
	})
	offer, err := pc.CreateOffer(nil)
	if err != nil {
		t.Fatal(err)
	}
	gathered := webrtc.GatheringCompletePromise(pc)
	if err := pc.SetLocalDescription(offer); err != nil {
		t.Fatal(err)
	}
	<-gathered
	sdp := answer(pc.LocalDescription().SDP)
	if err := pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeAnswer, SDP: sdp}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-connected:
	case <-time.After(10 * time.Second):
		t.Fatal("the WebRTC connection did not come up")
	}
}
