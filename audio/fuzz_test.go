package audio

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pion/rtp"
)

// Parsers of what comes from outside: RTP payloads from the PBX, SDP from
// the tab, recogniser output, WAV files. None may panic.

func FuzzParseDTMF(f *testing.F) {
	f.Add([]byte{5, 0x8a, 0x01, 0xe0})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		var d dtmfDetector
		d.feed(1, true, b)
		if ev, ok := parseDTMF(b); ok {
			if got, _ := parseDTMF(ev.marshal()); got != ev {
				t.Fatalf("round trip %+v -> %+v", ev, got)
			}
		}
	})
}

func FuzzOfferedCodecs(f *testing.F) {
	if b, err := os.ReadFile("testdata/chrome_offer.sdp"); err == nil {
		f.Add(string(b))
	}
	f.Add("v=0\r\nm=audio 9 RTP/AVP 0\r\n")
	f.Fuzz(func(t *testing.T, s string) { _, _ = offeredCodecs(s) })
}

func FuzzRecogniserOutput(f *testing.F) {
	f.Add([]byte("hello\n<s> 0.0 0.1 1\nhello 0.1 0.5 0.9\n</s> 0.5 0.6 1\n"))
	f.Add([]byte(`{"b":0,"d":1,"p":1,"t":"hi","w":[{"b":0,"d":1,"p":1,"t":"hi"}]}`))
	f.Add([]byte(`{"text":"hi","segments":[{"start":0,"end":1,"text":"hi"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		parseSphinxTimes(b)
		_, _ = parseSphinxJSON(b)
		_, _ = parseVerboseJSON(b)
	})
}

func FuzzReadWAV(f *testing.F) {
	f.Add(append(wavHeader(16000, 2, 8), 1, 0, 2, 0, 3, 0, 4, 0))
	f.Add([]byte("RIFF\x00\x00\x00\x00WAVE"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(t.TempDir(), "f.wav")
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		_, _, _ = readWAV(p)
	})
}

func FuzzReorder(f *testing.F) {
	f.Add([]byte{0, 1, 0, 3, 0, 2, 0, 9, 255, 255, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		var ro reorder
		n, out := 0, 0
		for i := 0; i+1 < len(b); i += 2 {
			ro.push(&rtp.Packet{Header: rtp.Header{SequenceNumber: uint16(b[i])<<8 | uint16(b[i+1])}}, func(*rtp.Packet) { out++ })
			n++
			if len(ro.held) > reorderDepth {
				t.Fatalf("holds %d packets", len(ro.held))
			}
		}
		if out > n {
			t.Fatalf("%d packets out of %d in", out, n)
		}
	})
}
