package audio

import "testing"

// TestConferenceEachHearsOthers: two far ends (440 Hz and 1000 Hz) and the
// tab (700 Hz). Each far end hears the other and the tab, never itself; the
// tab hears both far ends.
func TestConferenceEachHearsOthers(t *testing.T) {
	e := newTestEngine(t)
	far1, heard1 := farEnd(t, CodecPCMU, 440)
	far2, heard2 := farEnd(t, CodecG722, 1000)
	c1, err := e.NewSession(SessionConfig{CallID: "c1"})
	if err != nil {
		t.Fatal(err)
	}
	defer c1.Close()
	c2, err := e.NewSession(SessionConfig{CallID: "c2"})
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	for _, p := range []struct {
		far, call *Session
		c         Codec
	}{{far1, c1, CodecPCMU}, {far2, c2, CodecG722}} {
		if err := p.far.Start(p.call.LocalAddr(), p.c, 101); err != nil {
			t.Fatal(err)
		}
		if err := p.call.Start(p.far.LocalAddr(), p.c, 101); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Conference(c1); err == nil {
		t.Fatal("a conference of one was made")
	}
	if err := e.Conference(c1, c2); err != nil {
		t.Fatal(err)
	}
	tab := newFakeTab(t, e.Bridge(), "tab", CodecPCMU, 700)
	waitAttached(t, e.Bridge(), true)

	heard1.take(t, pcmRate/2)
	heard2.take(t, pcmRate/2)
	tab.heard.take(t, pcmRate/2)
	assertTones(t, "far end 1", heard1.take(t, pcmRate/2), []float64{1000, 700}, []float64{440})
	assertTones(t, "far end 2", heard2.take(t, pcmRate/2), []float64{440, 700}, []float64{1000})
	assertTones(t, "the tab", tab.heard.take(t, pcmRate/2), []float64{440, 1000}, []float64{700})

	// Leaving: c2 goes, c1 and the tab talk alone again.
	c2.LeaveConference()
	if c1.InConference() || c2.InConference() {
		t.Fatal("a conference of one was kept")
	}
}
