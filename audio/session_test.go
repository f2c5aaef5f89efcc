package audio

import (
	"net"
	"testing"
)

func newTestEngine(t *testing.T) *Engine {
	t.Helper()
	e, err := NewEngine(EngineConfig{Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// pair makes two sessions that send to each other with codec.
func pair(t *testing.T, e *Engine, c Codec, onDTMF func(byte)) (a, b *Session) {
	t.Helper()
	a, err := e.NewSession(SessionConfig{CallID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	b, err = e.NewSession(SessionConfig{CallID: "b", OnDTMF: onDTMF})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(); b.Close() })
	if err := a.Start(b.LocalAddr(), c, 101); err != nil {
		t.Fatal(err)
	}
	if err := b.Start(a.LocalAddr(), c, 101); err != nil {
		t.Fatal(err)
	}
	return a, b
}

func TestSessionsCarryToneEachCodec(t *testing.T) {
	for _, c := range []Codec{CodecPCMU, CodecPCMA, CodecG722, CodecOpus} {
		t.Run(c.Name, func(t *testing.T) {
			e := newTestEngine(t)
			a, b := pair(t, e, c, nil)
			var heardByB, heardByA collector
			b.setTap(heardByB.add)
			a.setTap(heardByA.add)
			stopA := feeder(t, a, 440)
			defer stopA()
			stopB := feeder(t, b, 1000)
			defer stopB()
			heardByB.take(t, pcmRate/2) // settle
			assertTone(t, "b hears a", heardByB.take(t, pcmRate/2), pcmRate, 440)
			assertTone(t, "a hears b", heardByA.take(t, pcmRate/2), pcmRate, 1000)
			if st := b.Stats(); st.PacketsReceived == 0 || st.Loss > 0.05 || st.Codec != c.Name {
				t.Fatalf("stats %+v", st)
			}
		})
	}
}

func TestEnginePortRangeAndApply(t *testing.T) {
	e, err := NewEngine(EngineConfig{RTPPortMin: 40000, RTPPortMax: 40005, Codecs: []string{"opus"}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var ss []*Session
	for i := 0; i < 3; i++ {
		s, err := e.NewSession(SessionConfig{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		p := s.LocalAddr().Port
		if p < 40000 || p > 40004 || p%2 != 0 || !s.LocalAddr().IP.Equal(net.IPv4(127, 0, 0, 1)) {
			t.Fatalf("session bound %v", s.LocalAddr())
		}
		ss = append(ss, s)
	}
	// A full range is no reason to lose the call (issue 17): the fourth
	// session gets a pair outside it, counted for the page.
	if s, err := e.NewSession(SessionConfig{}); err != nil {
		t.Fatalf("a fourth session in a range of three pairs: %v", err)
	} else {
		if p := s.LocalAddr().Port; p >= 40000 && p <= 40005 || p%2 != 0 {
			t.Errorf("outside the full range: port %d", p)
		}
		s.Close()
	}
	if n, lo, hi := e.RTPOutsideRange(); n != 1 || lo != 40000 || hi != 40005 {
		t.Errorf("RTPOutsideRange %d %d-%d", n, lo, hi)
	}
	freed := ss[0].LocalAddr().Port
	ss[0].Close()
	if s, err := e.NewSession(SessionConfig{}); err != nil || s.LocalAddr().Port != freed {
		t.Fatalf("a freed pair is not reused: %v", err)
	} else {
		s.Close()
	}
	if c := e.Codecs(); c[0].Name != "opus" || c[len(c)-1].Name != "telephone-event" {
		t.Fatalf("codecs %v", c)
	}
	if err := e.Apply(EngineConfig{RTPPortMin: 5, RTPPortMax: 1}); err == nil {
		t.Fatal("a backwards range was applied")
	}
	if err := e.Apply(EngineConfig{Codecs: []string{"PCMA"}}); err != nil {
		t.Fatal(err)
	}
	if c := e.Codecs(); c[0].Name != "PCMA" {
		t.Fatalf("codecs after Apply %v", c)
	}
	if _, err := NewEngine(EngineConfig{BindIP: "nowhere"}); err == nil {
		t.Fatal("a bad bind address was taken")
	}
}
