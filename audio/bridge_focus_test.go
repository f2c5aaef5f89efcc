package audio

import (
	"testing"
	"time"
)

// startCall makes a call in e toward a far end of its own playing hz.
func startCall(t *testing.T, e *Engine, c Codec, hz float64, onDTMF func(byte)) (call, far *Session, farHeard *collector) {
	t.Helper()
	call, err := e.NewSession(SessionConfig{CallID: "call"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { call.Close() })
	fe := newTestEngine(t)
	far, err = fe.NewSession(SessionConfig{CallID: "far", OnDTMF: onDTMF})
	if err != nil {
		t.Fatal(err)
	}
	farHeard = &collector{}
	far.setTap(farHeard.add)
	stop := feeder(t, far, hz)
	t.Cleanup(func() { stop(); far.Close() })
	if err := far.Start(call.LocalAddr(), c, 101); err != nil {
		t.Fatal(err)
	}
	if err := call.Start(far.LocalAddr(), c, 101); err != nil {
		t.Fatal(err)
	}
	return call, far, farHeard
}

// TestTabStreamContinuousAcrossCalls: the tab hears call 1, call 1 is held
// and call 2 taken; the tab's stream goes on with sequence numbers one by
// one and growing timestamps, then carries call 2.
func TestTabStreamContinuousAcrossCalls(t *testing.T) {
	e := newTestEngine(t)
	call1, _, far1Heard := startCall(t, e, CodecPCMU, 1000, nil)
	tab := newFakeTab(t, e.Bridge(), "tab", CodecPCMU, 440)
	waitAttached(t, e.Bridge(), true)
	tab.heard.take(t, pcmRate/4)
	assertTone(t, "call 1", tab.heard.take(t, pcmRate/4), pcmRate, 1000)

	call1.SetDirection(SendOnly) // hold
	_, _, far2Heard := startCall(t, e, CodecPCMU, 700, nil)
	tab.heard.take(t, pcmRate/4)
	assertTone(t, "call 2", tab.heard.take(t, pcmRate/4), pcmRate, 700)
	far2Heard.take(t, pcmRate/4)
	assertTone(t, "far end 2 hears the tab", far2Heard.take(t, pcmRate/4), pcmRate, 440)
	far1Heard.take(t, pcmRate/4)
	assertQuiet(t, "held far end 1", far1Heard.take(t, pcmRate/4))

	h := tab.headers()
	if len(h) < 50 {
		t.Fatalf("only %d packets", len(h))
	}
	for i := 1; i < len(h); i++ {
		if h[i].SSRC != h[0].SSRC || h[i].SequenceNumber != h[i-1].SequenceNumber+1 {
			t.Fatalf("packet %d: seq %d after %d", i, h[i].SequenceNumber, h[i-1].SequenceNumber)
		}
		if d := h[i].Timestamp - h[i-1].Timestamp; d == 0 || d > 8000 {
			t.Fatalf("packet %d: timestamp step %d", i, d)
		}
	}
}

// TestFocusMovesTheAudio: the tab offered last holds the audio, Focus moves
// it, closing the holder gives it back to the other, and without tabs the
// bridge is detached.
func TestFocusMovesTheAudio(t *testing.T) {
	e := newTestEngine(t)
	_, _, farHeard := startCall(t, e, CodecPCMU, 1000, nil)
	b := e.Bridge()
	tab1 := newFakeTab(t, b, "tab1", CodecPCMU, 440)
	tab2 := newFakeTab(t, b, "tab2", CodecPCMU, 700)
	waitHolder(t, b, "tab2")
	farHeard.take(t, pcmRate/4)
	assertTones(t, "far end, tab 2 holds", farHeard.take(t, pcmRate/4), []float64{700}, []float64{440})
	tab1.heard.reset()
	tab2.heard.take(t, pcmRate/4)
	assertTone(t, "tab 2", tab2.heard.take(t, pcmRate/4), pcmRate, 1000)
	if n := tab1.heard.len(); n != 0 {
		t.Fatalf("tab 1 heard %d samples while tab 2 held the audio", n)
	}

	b.Focus("tab1")
	waitHolder(t, b, "tab1")
	farHeard.take(t, pcmRate/4)
	assertTones(t, "far end, tab 1 holds", farHeard.take(t, pcmRate/4), []float64{440}, []float64{700})
	tab1.heard.take(t, pcmRate/4)
	assertTone(t, "tab 1", tab1.heard.take(t, pcmRate/4), pcmRate, 1000)

	b.Close("tab1")
	waitHolder(t, b, "tab2")
	b.Close("tab2")
	waitAttached(t, b, false)
}

func waitHolder(t *testing.T, b *Bridge, id string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for b.Tab() != id {
		if time.Now().After(deadline) {
			t.Fatalf("holder %q, want %q", b.Tab(), id)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestTabDTMFReachesTheFarEnd: the page's RFC 4733 digits (RTCDTMFSender)
// are sent on to the call.
func TestTabDTMFReachesTheFarEnd(t *testing.T) {
	e := newTestEngine(t)
	got := make(chan byte, 8)
	_, _, farHeard := startCall(t, e, CodecPCMU, 1000, func(d byte) { got <- d })
	tab := newFakeTab(t, e.Bridge(), "tab", CodecPCMU, 440)
	waitAttached(t, e.Bridge(), true)
	farHeard.take(t, pcmRate/10)
	for _, d := range []byte("5#") {
		tab.track.dtmf(126, d)
		select {
		case g := <-got:
			if g != d {
				t.Fatalf("far end got %c, want %c", g, d)
			}
		case <-time.After(3 * time.Second):
			t.Fatalf("digit %c did not arrive", d)
		}
	}
}
