package sipua

import (
	"math"
	"net"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/pion/rtp"
	"github.com/zaf/g711"

	"github.com/softphone/softphone/audio"
	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// TestStrayRTPDuringCall: SIPp calls the phone and streams a 440 Hz tone;
// meanwhile a stranger on another address (127.0.0.3) sends 1000 Hz to the
// call's RTP port. The call's recording (the far end's channel) holds the
// 440 Hz and not the 1000 Hz, and the stranger's packets are counted.
func TestStrayRTPDuringCall(t *testing.T) {
	home := t.TempDir()
	var mu sync.Mutex
	var rec audio.RecordingInfo
	recorded := make(chan struct{})
	eng, err := audio.NewEngine(audio.EngineConfig{Home: home, Logger: testLogger(), OnRecording: func(r audio.RecordingInfo) {
		mu.Lock()
		rec = r
		mu.Unlock()
		close(recorded)
	}})
	must(t, err)
	t.Cleanup(func() { _ = eng.Close() })
	acc := sippAccount(t, testpeer.FreeUDPPort(t))
	s := store.Settings{SIP: store.SIPSettings{Listen: "127.0.0.1:0", SelectedAccount: acc.ID, AutoAnswer: true},
		Accounts: []store.Account{acc}, Recording: store.RecordingSettings{Mode: "all"}}
	p := startPhoneWith(t, s, secretMap{}, nil, func(c *Config) { c.Media = eng })

	dir := testpeer.SIPpDir(t)
	cmd := testpeer.SIPp(t, dir, "-sf", "uac_rtp.xml", "127.0.0.1:"+itoa(p.stackPort()), "-s", "alice",
		"-d", "3000", "-m", "1", "-p", itoa(testpeer.FreeUDPPort(t)), "-mp", itoa(testpeer.FreeUDPPort(t)))
	done := make(chan error, 1)
	go func() { done <- cmd.Run() }()
	c := p.waitState("", StateActive, 10*time.Second)
	cc, err := p.get(c.ID)
	must(t, err)
	var target *net.UDPAddr
	must(t, cc.do(bg, func() error { target = cc.media.LocalAddr(); return nil }))
	target = &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: target.Port}

	stranger, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 3)})
	must(t, err)
	defer stranger.Close()
	stop := make(chan struct{})
	sent := make(chan int, 1)
	go func() {
		tk := time.NewTicker(20 * time.Millisecond)
		defer tk.Stop()
		var ph float64
		n := 0
		for {
			select {
			case <-stop:
				sent <- n
				return
			case <-tk.C:
			}
			payload := make([]byte, 160)
			for i := range payload {
				payload[i] = g711.EncodeUlawFrame(int16(12000 * math.Sin(ph)))
				ph += 2 * math.Pi * 1000 / 8000
			}
			n++
			pkt, _ := (&rtp.Packet{Header: rtp.Header{Version: 2, PayloadType: 0, SequenceNumber: uint16(n),
				Timestamp: uint32(n * 160), SSRC: 0x5afe}, Payload: payload}).Marshal()
			_, _ = stranger.WriteToUDP(pkt, target)
		}
	}()
	fds, heap := fdsAndHeap()
	if err := <-done; err != nil {
		t.Fatalf("sipp: %v\n%s", err, tail(p.SIPTrace()))
	}
	close(stop)
	n := <-sent
	select {
	case <-recorded:
	case <-time.After(15 * time.Second):
		t.Fatal("no recording")
	}
	mu.Lock()
	path := filepath.Join(home, rec.Path)
	mu.Unlock()
	w, err := testpeer.ReadWAV(path)
	must(t, err)
	far := w.Channel(1)
	a440, a1000 := toneLevel(far, 440, w.Rate), toneLevel(far, 1000, w.Rate)
	t.Logf("stranger sent %d packets, %d dropped; far end: 440 Hz %.4f, 1000 Hz %.4f; fds %d, heap %d KiB",
		n, eng.StrayPackets(), a440, a1000, fds, heap/1024)
	if a440 < 0.05 || a1000 > a440/20 {
		t.Fatalf("the call heard 440 Hz at %.4f and the stranger's 1000 Hz at %.4f", a440, a1000)
	}
	if eng.StrayPackets() == 0 || eng.StrayPackets() > uint64(n) {
		t.Fatalf("%d strays counted, %d sent", eng.StrayPackets(), n)
	}
}

// toneLevel is the amplitude of hz in x over the whole signal (Goertzel).
func toneLevel(x []float64, hz float64, rate int) float64 {
	w := 2 * math.Pi * hz / float64(rate)
	c := 2 * math.Cos(w)
	var s1, s2 float64
	for _, v := range x {
		s := v + c*s1 - s2
		s2, s1 = s1, s
	}
	return 2 * math.Sqrt(math.Max(0, s1*s1+s2*s2-c*s1*s2)) / float64(len(x))
}
