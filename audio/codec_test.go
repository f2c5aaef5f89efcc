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
