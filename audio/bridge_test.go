package audio

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/pion/rtp"
	"github.com/pion/webrtc/v4"

	"github.com/softphone/softphone/internal/testpeer"
)

// fakeTab plays the browser: a pion PeerConnection that offers one codec,
// sends a tone as its microphone and decodes what it hears.
type fakeTab struct {
	pc    *webrtc.PeerConnection
	heard collector
	stop  func()
	track *rawTrack

	mu   sync.Mutex
	hdrs []rtp.Header // of the packets the tab received
}

func (f *fakeTab) headers() []rtp.Header {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]rtp.Header(nil), f.hdrs...)
}

func newFakeTab(t *testing.T, b *Bridge, id string, c Codec, hz float64, more ...Codec) *fakeTab {
	t.Helper()
	capab := webrtc.RTPCodecCapability{MimeType: "audio/" + c.Name, ClockRate: c.ClockRate, Channels: c.Channels, SDPFmtpLine: c.Fmtp}
	byPT := map[uint8]Codec{}
	var offered []webrtc.RTPCodecParameters
	for _, k := range append([]Codec{c}, more...) {
		byPT[k.PT] = k
		kc := webrtc.RTPCodecCapability{MimeType: "audio/" + k.Name, ClockRate: k.ClockRate, Channels: k.Channels, SDPFmtpLine: k.Fmtp}
		offered = append(offered, webrtc.RTPCodecParameters{RTPCodecCapability: kc, PayloadType: webrtc.PayloadType(k.PT)})
	}
	offered = append(offered, webrtc.RTPCodecParameters{RTPCodecCapability: webrtc.RTPCodecCapability{MimeType: "audio/telephone-event", ClockRate: 8000, SDPFmtpLine: "0-15"}, PayloadType: 126})
	pc := testpeer.LoopbackPeer(t, offered...)
	ft := &fakeTab{pc: pc}
	t.Cleanup(func() { ft.stop() }) // before the peer's close (cleanups run last first)
	track := &rawTrack{capab: capab}
	ft.track = track
	if _, err := pc.AddTrack(track); err != nil {
		t.Fatal(err)
	}
	pc.OnTrack(func(tr *webrtc.TrackRemote, _ *webrtc.RTPReceiver) {
		decs := map[uint8]pcmDecoder{}
		pcm := make([]int16, maxFrame)
		for {
			p, _, err := tr.ReadRTP()
			if err != nil {
				return
			}
			ft.mu.Lock()
			ft.hdrs = append(ft.hdrs, p.Header)
			ft.mu.Unlock()
			dec := decs[p.PayloadType]
			if dec == nil {
				k, ok := byPT[p.PayloadType]
				if !ok {
					continue
				}
				dec, _ = newDecoder(k)
				decs[p.PayloadType] = dec
			}
			if n, err := dec.decode(p.Payload, pcm); err == nil {
				ft.heard.add(pcm[:n])
			}
		}
	})
	testpeer.Connect(t, pc, func(offer string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		answer, err := b.Offer(ctx, id, offer)
		if err != nil {
			t.Fatal(err)
		}
		return answer
	})
	// The microphone: a tone, 20 ms packets.
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		enc, _ := newEncoder(c)
		buf := make([]byte, 1500)
		var ph float64
		tk := time.NewTicker(20 * time.Millisecond)
		defer tk.Stop()
		for {
			select {
			case <-done:
				return
			case <-tk.C:
			}
			n, _ := enc.encode(tone(hz, pcmRate, frameLen, &ph), buf)
			track.write(c.PT, buf[:n])
		}
	}()
	var so sync.Once
	ft.stop = func() { so.Do(func() { close(done); wg.Wait() }) }
	return ft
}

// farEnd is the PBX side: a session of its own engine that plays hz.
func farEnd(t *testing.T, c Codec, hz float64) (*Session, *collector) {
	t.Helper()
	fe := newTestEngine(t)
	s, err := fe.NewSession(SessionConfig{CallID: "far"})
	if err != nil {
		t.Fatal(err)
	}
	var heard collector
	s.setTap(heard.add)
	stop := feeder(t, s, hz)
	t.Cleanup(func() { stop(); s.Close() })
	return s, &heard
}

func TestBridgeCarriesToneBothWays(t *testing.T) {
	cases := []struct {
		name     string
		tab, pbx Codec
		pass     bool
		more     []Codec // further codecs the tab offers
	}{
		{"PCMU", CodecPCMU, CodecPCMU, true, nil},
		{"PCMA", CodecPCMA, CodecPCMA, true, nil},
		{"G722", CodecG722, CodecG722, true, nil},
		{"opus", CodecOpus, CodecOpus, true, nil},
		{"PCMU-tab-G722-call", CodecPCMU, CodecG722, false, nil},
		{"opus-tab-PCMA-call", CodecOpus, CodecPCMA, false, nil},
		{"PCMU-tab-also-G722-G722-call", CodecPCMU, CodecG722, false, []Codec{CodecG722}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newTestEngine(t)
			call, err := e.NewSession(SessionConfig{CallID: "c1"})
			if err != nil {
				t.Fatal(err)
			}
			defer call.Close()
			far, farHeard := farEnd(t, tc.pbx, 1000)
			if err := far.Start(call.LocalAddr(), tc.pbx, 101); err != nil {
				t.Fatal(err)
			}
			if err := call.Start(far.LocalAddr(), tc.pbx, 101); err != nil {
				t.Fatal(err)
			}
			tab := newFakeTab(t, e.Bridge(), "tab1", tc.tab, 440, tc.more...)
			waitAttached(t, e.Bridge(), true)
			tab.heard.take(t, pcmRate/2)
			assertTone(t, "the tab hears the far end", tab.heard.take(t, pcmRate/2), pcmRate, 1000)
			farHeard.take(t, pcmRate/2)
			assertTone(t, "the far end hears the tab", farHeard.take(t, pcmRate/2), pcmRate, 440)
			b := e.Bridge()
			if tc.pass && (b.passedDown.Load() == 0 || b.passedUp.Load() == 0 || b.mixedDown.Load() > 5) {
				t.Fatalf("same codec not passed through: down %d/%d up %d/%d", b.passedDown.Load(), b.mixedDown.Load(), b.passedUp.Load(), b.mixedUp.Load())
			}
			// Both directions leave pion's upper layers once connected
			// (bridge_fast.go): a few packets before that may take pion's.
			if b.fastIn.Load() < 20 || b.fastOut.Load() < 20 {
				t.Fatalf("fast path carried %d packets from the tab, %d to it", b.fastIn.Load(), b.fastOut.Load())
			}
			// While the far end sends, the call's reader takes the tab's
			// packets from the quiet socket (bridge_quiet.go, Linux only).
			if runtime.GOOS == "linux" && b.quietIn.Load() < 20 {
				t.Fatalf("the quiet socket carried %d datagrams from the tab", b.quietIn.Load())
			}
			switch {
			case !tc.pass && tc.more == nil && (b.passedDown.Load() != 0 || b.passedUp.Load() != 0):
				t.Fatalf("different codecs passed through")
			case tc.more != nil && (b.passedDown.Load() == 0 || b.passedUp.Load() != 0):
				// The tab sends its first codec (transcoded up), and takes
				// the call's codec, which it also accepted, as it is.
				t.Fatalf("down %d/%d up %d/%d, want down passed through, up transcoded",
					b.passedDown.Load(), b.mixedDown.Load(), b.passedUp.Load(), b.mixedUp.Load())
			}
		})
	}
}

// waitAttached polls (there is no event for it) until Attached is want.
func waitAttached(t *testing.T, b *Bridge, want bool) {
	t.Helper()
	waitFor(t, fmt.Sprintf("Attached() becomes %v", want), func() bool { return b.Attached() == want })
}

// waitFor polls cond for 5 s (what it waits for has no event of its own).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 5 s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
