package audio

import "testing"

func TestCodecRoundTripKeepsTone(t *testing.T) {
	for _, c := range []Codec{CodecPCMU, CodecPCMA, CodecG722, CodecOpus} {
		t.Run(c.Name, func(t *testing.T) {
			enc, err := newEncoder(c)
			if err != nil {
				t.Fatal(err)
			}
			dec, err := newDecoder(c)
			if err != nil {
				t.Fatal(err)
			}
			var ph float64
			var got []int16
			payload := make([]byte, 1500)
			pcm := make([]int16, maxFrame)
			for i := 0; i < 50; i++ {
				n, err := enc.encode(tone(440, pcmRate, frameLen, &ph), payload)
				if err != nil {
					t.Fatal(err)
				}
				m, err := dec.decode(payload[:n], pcm)
				if err != nil {
					t.Fatal(err)
				}
				if m != frameLen {
					t.Fatalf("decoded %d samples, want %d", m, frameLen)
				}
				got = append(got, pcm[:m]...)
			}
			assertTone(t, c.Name, got[len(got)/2:], pcmRate, 440)
		})
	}
}

func TestDTMFPayloadRoundTrip(t *testing.T) {
	for _, d := range []byte("0123456789*#ABCD") {
		code, err := dtmfCode(d)
		if err != nil {
			t.Fatal(err)
		}
		ev, ok := parseDTMF(dtmfEvent{event: code, end: true, volume: 10, duration: 480}.marshal())
		if !ok || !ev.end || ev.volume != 10 || ev.duration != 480 || dtmfDigit(ev.event) != d {
			t.Fatalf("digit %c: got %+v", d, ev)
		}
	}
	if _, err := dtmfCode('x'); err == nil {
		t.Fatal("x accepted as a digit")
	}
}

func TestCodecNamesAndDefaults(t *testing.T) {
	for in, want := range map[string]string{"pcmu": "PCMU", "PcMa": "PCMA", "g722": "G722", "OPUS": "opus", "Telephone-Event": "telephone-event", "iLBC": "iLBC"} {
		if got := codecKind(in); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
	if c := withDefaults(Codec{Name: "opus", PT: 96}); c.ClockRate != 48000 || frameUnits(c) != 960 {
		t.Errorf("opus without clock: %+v", c)
	}
	if c := withDefaults(Codec{Name: "PCMA", PT: 8}); c.ClockRate != 8000 || frameUnits(c) != 160 || c.Channels != 1 {
		t.Errorf("PCMA without clock: %+v", c)
	}
	if _, err := newEncoder(Codec{Name: "iLBC"}); err == nil {
		t.Error("iLBC encoder made")
	}
}
