package sipua

import (
	"context"
	"fmt"
	"net"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/softphone/softphone/audio"

	"github.com/softphone/softphone/store"
)

// rawPeer is a bare UDP socket that speaks just enough SIP for benchmarks.
type rawPeer struct {
	conn *net.UDPConn
	buf  []byte
}

func newRawPeer(b testing.TB) *rawPeer {
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return &rawPeer{conn: c, buf: make([]byte, 65535)}
}

func (r *rawPeer) port() int { return r.conn.LocalAddr().(*net.UDPAddr).Port }

// read returns the next message whose first line has prefix.
func (r *rawPeer) read(b testing.TB, prefix string) (string, *net.UDPAddr) {
	for {
		_ = r.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		n, from, err := r.conn.ReadFromUDP(r.buf)
		if err != nil {
			b.Fatalf("waiting for %q: %v", prefix, err)
		}
		m := string(r.buf[:n])
		if strings.HasPrefix(m, prefix) {
			return m, from
		}
	}
}

// header gives the first header of msg with that name.
func header(msg, name string) string {
	for _, l := range strings.Split(msg, "\r\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.EqualFold(strings.TrimSpace(k), name) {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// reply answers a request with a final response (a to-tag added).
func (r *rawPeer) reply(b testing.TB, req string, to *net.UDPAddr, status string, extra ...string) {
	res := "SIP/2.0 " + status + "\r\n"
	for _, h := range []string{"Via", "From", "Call-ID", "CSeq"} {
		res += h + ": " + header(req, h) + "\r\n"
	}
	res += "To: " + header(req, "To") + ";tag=peer\r\n"
	for _, e := range extra {
		res += e + "\r\n"
	}
	res += "Content-Length: 0\r\n\r\n"
	if _, err := r.conn.WriteToUDP([]byte(res), to); err != nil {
		b.Fatal(err)
	}
}

func benchPhone(b *testing.B, registrarPort int) *Phone {
	acc := store.Account{ID: uuid.NewString(), Username: "alice", Domain: "127.0.0.1", Port: registrarPort, Transport: "udp", Enabled: true, ExpiryS: 3600}
	s := store.Settings{SIP: store.SIPSettings{Listen: "127.0.0.1:0"}, Accounts: []store.Account{acc}}
	p, err := New(Config{Settings: s, Logger: testLogger()})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = p.Serve(ctx); close(done) }()
	b.Cleanup(func() { cancel(); <-done })
	for i := 0; p.stackPort() == 0; i++ {
		if i > 1000 {
			b.Fatal("phone did not start")
		}
		time.Sleep(time.Millisecond)
	}
	return p
}

func (p *Phone) stackPort() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stack == nil {
		return 0
	}
	return p.stack.udpPort
}

func reportPercentiles(b *testing.B, d []time.Duration) {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	pc := func(q float64) float64 { return float64(d[int(q*float64(len(d)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pc(0.5), "p50-ms")
	b.ReportMetric(pc(0.99), "p99-ms")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkInviteTo180 measures an incoming INVITE to our 180 Ringing.
func BenchmarkInviteTo180(b *testing.B) {
	peer := newRawPeer(b)
	p := benchPhone(b, peer.port())
	dst := &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: p.stackPort()}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		callID, branch := uuid.NewString(), "z9hG4bK"+uuid.NewString()[:8]
		body := string(buildSDP("127.0.0.1", 40000, []audioCodec{pcmu}, dirSendRecv, 1, 1))
		inv := fmt.Sprintf("INVITE sip:alice@127.0.0.1:%d SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:%d;branch=%s;rport\r\n"+
			"From: <sip:bench@127.0.0.1>;tag=b%d\r\nTo: <sip:alice@127.0.0.1>\r\nCall-ID: %s\r\nCSeq: 1 INVITE\r\n"+
			"Contact: <sip:bench@127.0.0.1:%d>\r\nMax-Forwards: 70\r\nContent-Type: application/sdp\r\nContent-Length: %d\r\n\r\n%s",
			dst.Port, peer.port(), branch, i, callID, peer.port(), len(body), body)
		start := time.Now()
		if _, err := peer.conn.WriteToUDP([]byte(inv), dst); err != nil {
			b.Fatal(err)
		}
		peer.read(b, "SIP/2.0 180")
		lat = append(lat, time.Since(start))
		cancel := fmt.Sprintf("CANCEL sip:alice@127.0.0.1:%d SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:%d;branch=%s;rport\r\n"+
			"From: <sip:bench@127.0.0.1>;tag=b%d\r\nTo: <sip:alice@127.0.0.1>\r\nCall-ID: %s\r\nCSeq: 1 CANCEL\r\nMax-Forwards: 70\r\nContent-Length: 0\r\n\r\n",
			dst.Port, peer.port(), branch, i, callID)
		_, _ = peer.conn.WriteToUDP([]byte(cancel), dst)
		res, _ := peer.read(b, "SIP/2.0 487")
		ack := fmt.Sprintf("ACK sip:alice@127.0.0.1:%d SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:%d;branch=%s;rport\r\n"+
			"From: <sip:bench@127.0.0.1>;tag=b%d\r\nTo: %s\r\nCall-ID: %s\r\nCSeq: 1 ACK\r\nMax-Forwards: 70\r\nContent-Length: 0\r\n\r\n",
			dst.Port, peer.port(), branch, i, header(res, "To"), callID)
		_, _ = peer.conn.WriteToUDP([]byte(ack), dst)
	}
	b.StopTimer()
	reportPercentiles(b, lat)
}

// BenchmarkDialToInvite measures Dial to the INVITE arriving at the PBX.
func BenchmarkDialToInvite(b *testing.B) {
	peer := newRawPeer(b)
	p := benchPhone(b, peer.port())
	// Let the first REGISTER arrive and answer it, so the line is up.
	reg, from := peer.read(b, "REGISTER")
	peer.reply(b, reg, from, "200 OK")
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := p.Dial(context.Background(), "123", ""); err != nil {
			b.Fatal(err)
		}
		inv, from := peer.read(b, "INVITE")
		lat = append(lat, time.Since(start))
		peer.reply(b, inv, from, "486 Busy Here")
		peer.read(b, "ACK")
	}
	b.StopTimer()
	reportPercentiles(b, lat)
}

type audioCodec = audio.Codec

var pcmu = audio.CodecPCMU
