package audio

import (
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
