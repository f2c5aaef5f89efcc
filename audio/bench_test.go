package audio

import (
	"net"
	"runtime"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/pion/rtp"
	"github.com/pion/webrtc/v4"

	"github.com/softphone/softphone/internal/testpeer"
)

// benchTab connects a bare pion "browser" with PCMU and returns its
// receiving track (first packet) and its sending track.
func benchTab(b *testing.B, br *Bridge) (recv chan *rtp.Packet, send *webrtc.TrackLocalStaticRTP) {
	b.Helper()
	recv = make(chan *rtp.Packet, 1024)
	capab := webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypePCMU, ClockRate: 8000}
	pc := testpeer.LoopbackPeer(b, webrtc.RTPCodecParameters{RTPCodecCapability: capab, PayloadType: 0})
	send, _ = webrtc.NewTrackLocalStaticRTP(capab, "mic", "tab")
	pc.AddTrack(send)
	pc.OnTrack(func(tr *webrtc.TrackRemote, _ *webrtc.RTPReceiver) {
		for {
			p, _, err := tr.ReadRTP()
			if err != nil {
				return
			}
			select {
			case recv <- p:
			default:
			}
		}
	})
	offer, _ := pc.CreateOffer(nil)
	g := webrtc.GatheringCompletePromise(pc)
	pc.SetLocalDescription(offer)
	<-g
	answer, err := br.Offer(b.Context(), "bench", pc.LocalDescription().SDP)
	if err != nil {
		b.Fatal(err)
	}
	pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeAnswer, SDP: answer})
	// The tab counts as attached once its media flows: send until then.
	silence := make([]byte, 160)
	for i, deadline := 0, time.Now().Add(5*time.Second); !br.Attached(); i++ {
		if time.Now().After(deadline) {
			b.Fatal("no connection")
		}
		_ = send.WriteRTP(&rtp.Packet{Header: rtp.Header{Version: 2, SequenceNumber: uint16(60000 + i), Timestamp: uint32(i * 160)}, Payload: silence})
		time.Sleep(5 * time.Millisecond)
	}
	return recv, send
}

// BenchmarkPassThroughLatency measures one PCMU packet from the PBX's
// socket through the session and the bridge to the tab's track (down), and
// from the tab's track to the PBX's socket (up), over real loopback sockets
// with SRTP. It reports the median of each direction.
func BenchmarkPassThroughLatency(b *testing.B) {
	e, err := NewEngine(EngineConfig{Home: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	s, _ := e.NewSession(SessionConfig{CallID: "bench"})
	pbx, _ := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	defer pbx.Close()
	s.Start(pbx.LocalAddr().(*net.UDPAddr), CodecPCMU, 101)
	recv, send := benchTab(b, e.Bridge())
	payload := make([]byte, 160)
	buf := make([]byte, 1500)
	var down, up []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// down: PBX -> tab
		p := rtp.Packet{Header: rtp.Header{Version: 2, PayloadType: 0, SequenceNumber: uint16(i), Timestamp: uint32(i * 160), SSRC: 7}, Payload: payload}
		raw, _ := p.Marshal()
		t0 := time.Now()
		pbx.WriteToUDP(raw, s.LocalAddr())
		select {
		case <-recv:
			down = append(down, time.Since(t0))
		case <-time.After(time.Second):
			b.Fatal("packet lost toward the tab")
		}
		// up: tab -> PBX (skip the session's own silence packets)
		t0 = time.Now()
		send.WriteRTP(&rtp.Packet{Header: rtp.Header{Version: 2, SequenceNumber: uint16(i), Timestamp: uint32(i * 160)}, Payload: payload})
		for {
			pbx.SetReadDeadline(time.Now().Add(time.Second))
			n, _, err := pbx.ReadFromUDP(buf)
			if err != nil {
				b.Fatal("packet lost toward the PBX")
			}
			var q rtp.Packet
			if q.Unmarshal(buf[:n]) == nil && q.Payload[0] == 0 {
				up = append(up, time.Since(t0))
				break
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(median(down).Microseconds()), "µs-down-median")
	b.ReportMetric(float64(median(up).Microseconds()), "µs-up-median")
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)/2]
}

// BenchmarkMemoryPerCall reports the heap that one started call (session,
// codecs, buffers, goroutines) holds, for PCMU and Opus.
func BenchmarkMemoryPerCall(b *testing.B) {
	for _, c := range []Codec{CodecPCMU, CodecOpus} {
		b.Run(c.Name, func(b *testing.B) {
			e, _ := NewEngine(EngineConfig{Home: b.TempDir()})
			defer e.Close()
			peer, _ := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
			defer peer.Close()
			const n = 50
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			ss := make([]*Session, 0, n)
			for i := 0; i < n; i++ {
				s, err := e.NewSession(SessionConfig{CallID: "m"})
				if err != nil {
					b.Fatal(err)
				}
				s.Start(peer.LocalAddr().(*net.UDPAddr), c, 101)
				ss = append(ss, s)
			}
			time.Sleep(100 * time.Millisecond) // a few ticks: buffers in use
			runtime.GC()
			runtime.ReadMemStats(&after)
			per := (float64(after.HeapInuse+after.StackInuse) - float64(before.HeapInuse+before.StackInuse)) / n
			for i := 0; i < b.N; i++ {
			}
			b.ReportMetric(per/1024, "KiB/call")
			for _, s := range ss {
				s.Close()
			}
		})
	}
}

// BenchmarkOpusTranscodeFrame is the work of one 20 ms frame each way when
// the tab speaks Opus and the call PCMU: Opus decode + PCMU encode, PCMU
// decode + Opus encode. ns/op / 20 ms = the share of one core per call.
func BenchmarkOpusTranscodeFrame(b *testing.B) {
	oenc, _ := newEncoder(CodecOpus)
	odec, _ := newDecoder(CodecOpus)
	uenc, _ := newEncoder(CodecPCMU)
	udec, _ := newDecoder(CodecPCMU)
	var ph float64
	frame := tone(440, pcmRate, frameLen, &ph)
	pkt := make([]byte, 1500)
	n, _ := oenc.encode(frame, pkt)
	opusPkt := append([]byte(nil), pkt[:n]...)
	n, _ = uenc.encode(frame, pkt)
	ulawPkt := append([]byte(nil), pkt[:n]...)
	pcm := make([]int16, maxFrame)
	out := make([]byte, 1500)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m, _ := odec.decode(opusPkt, pcm)
		uenc.encode(pcm[:m], out)
		m, _ = udec.decode(ulawPkt, pcm)
		oenc.encode(pcm[:m], out)
	}
	b.StopTimer()
	perFrame := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(100*perFrame/0.020, "%core/call")
}

// BenchmarkBridgedCallCPU runs one PCMU call for 3 s per iteration with
// pass-through both ways (PBX side: a plain socket sending 50 packets/s;
// tab side: a pion PeerConnection sending 50 packets/s) and reports the
// process CPU per second of call. It is an upper bound: the fake tab's own
// SRTP and the packet generators are counted too.
func BenchmarkBridgedCallCPU(b *testing.B) {
	e, err := NewEngine(EngineConfig{Home: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	s, _ := e.NewSession(SessionConfig{CallID: "bench"})
	pbx, _ := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	defer pbx.Close()
	s.Start(pbx.LocalAddr().(*net.UDPAddr), CodecPCMU, 101)
	recv, send := benchTab(b, e.Bridge())
	go func() {
		buf := make([]byte, 1500)
		for {
			if _, _, err := pbx.ReadFromUDP(buf); err != nil {
				return
			}
		}
	}()
	payload := make([]byte, 160)
	cpu := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	var total, wall time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c0, w0 := cpu(), time.Now()
		tk := time.NewTicker(20 * time.Millisecond)
		for j := 0; j < 150; j++ {
			<-tk.C
			p := rtp.Packet{Header: rtp.Header{Version: 2, SequenceNumber: uint16(j), Timestamp: uint32(j * 160), SSRC: 7}, Payload: payload}
			raw, _ := p.Marshal()
			pbx.WriteToUDP(raw, s.LocalAddr())
			send.WriteRTP(&rtp.Packet{Header: rtp.Header{Version: 2, SequenceNumber: uint16(j), Timestamp: uint32(j * 160)}, Payload: payload})
			select {
			case <-recv:
			default:
			}
		}
		tk.Stop()
		total += cpu() - c0
		wall += time.Since(w0)
	}
	b.StopTimer()
	b.ReportMetric(100*total.Seconds()/wall.Seconds(), "%core")
}
