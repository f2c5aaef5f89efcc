package audio

import "testing"

// TestFillerTakesOverWhenTheTabFallsSilent: while the tab's packets pass
// through, the call's send loop sleeps (passCheck); when the tab stops
// sending, the stream toward the PBX goes on with silence, noticed by the
// PBX's next packet or, when the PBX sends nothing (it holds us: recvonly),
// by the send loop's backstop.
func TestFillerTakesOverWhenTheTabFallsSilent(t *testing.T) {
	for _, tc := range []struct {
		name     string
		farSends bool
	}{{"the PBX sends", true}, {"the PBX sends nothing", false}} {
		t.Run(tc.name, func(t *testing.T) {
			e := newTestEngine(t)
			call, err := e.NewSession(SessionConfig{CallID: "c1"})
			if err != nil {
				t.Fatal(err)
			}
			defer call.Close()
			far, farHeard := farEnd(t, CodecPCMU, 1000)
			if err := far.Start(call.LocalAddr(), CodecPCMU, 101); err != nil {
				t.Fatal(err)
			}
			if err := call.Start(far.LocalAddr(), CodecPCMU, 101); err != nil {
				t.Fatal(err)
			}
			tab := newFakeTab(t, e.Bridge(), "tab1", CodecPCMU, 440)
			waitAttached(t, e.Bridge(), true)
			farHeard.take(t, pcmRate/2)
			assertTone(t, "the far end hears the tab", farHeard.take(t, pcmRate/2), pcmRate, 440)
			if e.Bridge().passedUp.Load() == 0 {
				t.Fatal("the tab's packets were not passed through")
			}
			if !tc.farSends {
				far.SetDirection(RecvOnly)
			}
			tab.stop()
			farHeard.take(t, pcmRate/2) // the tone on the way, then the filler
			assertQuiet(t, "after the tab fell silent", farHeard.take(t, pcmRate/2))
		})
	}
}
