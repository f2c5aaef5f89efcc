package audio

import (
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/pion/rtp"
	"github.com/pion/srtp/v3"
)

// BenchmarkPassThroughPath is one PCMU packet each way through the bridge's
// own code on the fast path (bridge_fast.go), with real SRTP and real
// loopback sockets: the tab's encrypted packet decrypted, renumbered,
// encrypted for the PBX and written (up), and the PBX's packet renumbered,
// encrypted for the tab and written (down). Its allocs/op is the figure:
// the path allocates nothing per packet.
func BenchmarkPassThroughPath(b *testing.B) {
	e, err := NewEngine(EngineConfig{Home: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	s, _ := e.NewSession(SessionConfig{CallID: "bench"})
	pbx, _ := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	defer pbx.Close()
	go drain(pbx)
	if err := s.Start(pbx.LocalAddr().(*net.UDPAddr), CodecPCMU, 101); err != nil {
		b.Fatal(err)
	}
	benchTab(b, e.Bridge())
	t := e.Bridge().holder()
	var f *fastPath
	for deadline := time.Now().Add(5 * time.Second); f == nil; f = t.fast.Load() {
		if time.Now().After(deadline) {
			b.Fatal("the fast path did not start")
		}
		time.Sleep(5 * time.Millisecond)
	}
	// The tab's own context: the client's keys are the tab's.
	cfg := srtp.Config{Profile: srtp.ProtectionProfile(t.secrets.profile)}
	if err := cfg.ExtractSessionKeysFromDTLS(t.secrets, true); err != nil {
		b.Fatal(err)
	}
	tabCtx, err := srtp.CreateContext(cfg.Keys.LocalMasterKey, cfg.Keys.LocalMasterSalt, cfg.Profile)
	if err != nil {
		b.Fatal(err)
	}
	from := netip.MustParseAddrPort("127.0.0.1:9")
	payload := make([]byte, 160)
	plain := make([]byte, 1500)
	enc := make([]byte, 1500)
	pcm := make([]int16, maxFrame)
	down := rtp.Packet{Header: rtp.Header{Version: 2, SSRC: 7}, Payload: payload}
	up := rtp.Header{Version: 2, SSRC: 9}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		up.SequenceNumber, up.Timestamp = uint16(i), uint32(i*160)
		n, _ := up.MarshalTo(plain)
		n += copy(plain[n:], payload)
		in, err := tabCtx.EncryptRTP(enc, plain[:n], nil)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if !f.receive(in, from) {
			b.Fatal("the tab's packet did not authenticate")
		}
		down.SequenceNumber, down.Timestamp = uint16(i), uint32(i*160)
		s.deliver(&down, CodecPCMU, pcm)
	}
	b.StopTimer()
	if e.Bridge().passedUp.Load() < uint64(b.N) || e.Bridge().fastOut.Load() < uint64(b.N) {
		b.Fatalf("not passed through: up %d, to the tab %d of %d", e.Bridge().passedUp.Load(), e.Bridge().fastOut.Load(), b.N)
	}
}

func drain(c *net.UDPConn) {
	buf := make([]byte, 1500)
	for {
		if _, _, err := c.ReadFromUDPAddrPort(buf); err != nil {
			return
		}
	}
}
