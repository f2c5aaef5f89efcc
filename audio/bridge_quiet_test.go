//go:build linux

package audio

import (
	"net"
	"net/netip"
	"syscall"
	"testing"
	"time"

	"github.com/pion/webrtc/v4"
)

// quietCall is a bridged PCMU call whose tab's packets have moved to the
// quiet socket: the far end plays 1000 Hz, the tab 440 Hz.
func quietCall(t *testing.T) (b *Bridge, far *Session, farHeard *collector, tab *fakeTab) {
	t.Helper()
	e := newTestEngine(t)
	call, err := e.NewSession(SessionConfig{CallID: "c1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { call.Close() })
	far, farHeard = farEnd(t, CodecPCMU, 1000)
	if err := far.Start(call.LocalAddr(), CodecPCMU, 101); err != nil {
		t.Fatal(err)
	}
	if err := call.Start(far.LocalAddr(), CodecPCMU, 101); err != nil {
		t.Fatal(err)
	}
	b = e.Bridge()
	tab = newFakeTab(t, b, "tab1", CodecPCMU, 440)
	waitAttached(t, b, true)
	waitFor(t, "the quiet socket opens", func() bool { return b.quieting() && b.quietIn.Load() >= 10 })
	return b, far, farHeard, tab
}

// The tab's microphone reaches the far end whether or not the far end
// sends: when it falls silent (here it holds the call, RFC 3264 8.4:
// recvonly, it sends nothing) the quiet socket closes and the tab's
// packets are read as they come; when it sends again they move back.
func TestQuietSocketFollowsThePBX(t *testing.T) {
	b, far, farHeard, tab := quietCall(t)
	farHeard.take(t, pcmRate/4)
	assertTone(t, "the far end hears the tab (quiet socket)", farHeard.take(t, pcmRate/2), pcmRate, 440)

	far.SetDirection(RecvOnly)
	waitFor(t, "the quiet socket closes when the far end is silent", func() bool { return !b.quieting() })
	in := b.fastIn.Load()
	farHeard.reset()
	assertTone(t, "the far end hears the tab (ICE socket)", farHeard.take(t, pcmRate/2), pcmRate, 440)
	if got := b.fastIn.Load() - in; got < 20 {
		t.Fatalf("%d packets from the tab while the far end was silent", got)
	}

	far.SetDirection(SendRecv)
	q := b.quietIn.Load()
	waitFor(t, "the quiet socket opens again", func() bool { return b.quieting() && b.quietIn.Load() >= q+10 })
	farHeard.reset()
	assertTone(t, "the far end hears the tab (quiet socket again)", farHeard.take(t, pcmRate/2), pcmRate, 440)
	tab.heard.reset()
	tab.heard.take(t, pcmRate/4)
	assertTone(t, "the tab hears the far end", tab.heard.take(t, pcmRate/2), pcmRate, 1000)
}

// What the tab sends besides RTP (its ICE checks, RFC 7675 consent; RTCP)
// reaches pion while the quiet socket takes it: pion answers the checks,
// so the connection stays up. The fake tab's pion checks every 2 s.
func TestQuietSocketKeepsICEChecks(t *testing.T) {
	b, _, _, tab := quietCall(t)
	responses := func() uint64 {
		for _, s := range tab.pc.GetStats() {
			if p, ok := s.(webrtc.ICECandidatePairStats); ok && p.Nominated {
				return p.ResponsesReceived
			}
		}
		return 0
	}
	r0, p0 := responses(), b.quietPion.Load()
	deadline := time.Now().Add(10 * time.Second)
	for responses() < r0+2 || b.quietPion.Load() == p0 {
		if time.Now().After(deadline) {
			t.Fatalf("in 10 s: %d answers to the tab's checks (had %d), %d datagrams handed to pion (had %d)",
				responses(), r0, b.quietPion.Load(), p0)
		}
		if !b.quieting() {
			t.Fatal("the quiet socket closed while the far end sends")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if st := tab.pc.ICEConnectionState(); st != webrtc.ICEConnectionStateConnected {
		t.Fatalf("tab's ICE state %s", st)
	}
	if !b.Attached() {
		t.Fatal("the tab no longer holds the audio")
	}
}

// A stranger on this machine cannot take the tab's packets by binding the
// ICE socket's address: the address is shared only while the quiet socket
// binds it.
func TestQuietSocketAddressNotShared(t *testing.T) {
	b, _, _, _ := quietCall(t)
	f := b.quietF.Load()
	if f == nil {
		t.Fatal("no quiet socket")
	}
	local := f.sock.LocalAddr().(*net.UDPAddr)
	c := net.ListenConfig{Control: func(_, _ string, rc syscallRawConn) error {
		var err error
		_ = rc.Control(func(fd uintptr) { err = setReuseAddr(int(fd)) })
		return err
	}}
	if pc, err := c.ListenPacket(t.Context(), "udp4", local.String()); err == nil {
		pc.Close()
		t.Fatalf("another socket with SO_REUSEADDR bound %s", local)
	}
}

// inject's queue for pion is bounded, kept in order, and once taken the
// reader waits for the socket again (the deadline that woke it is gone).
func TestInjectBoundedAndWakesReader(t *testing.T) {
	u, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	c := &localOnly{rawUDP: newRawUDP(u), own: &ownAddrs{}, socks: &sockets{m: map[netip.AddrPort]*localOnly{}}}
	defer c.Close()
	from := netip.MustParseAddrPort("127.0.0.1:9")
	for i := range 100 {
		c.inject([]byte{byte(i)}, from)
	}
	buf := make([]byte, 1500)
	for i := range maxInjected {
		n, got, err := c.ReadFromAddrPort(buf)
		if err != nil || n != 1 || buf[0] != byte(i) || got != from {
			t.Fatalf("read %d: %v %d % x from %v", i, err, n, buf[:n], got)
		}
	}
	peer, err := net.DialUDP("udp4", nil, u.LocalAddr().(*net.UDPAddr))
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	if _, err := peer.Write([]byte("after")); err != nil {
		t.Fatal(err)
	}
	n, _, err := c.ReadFromAddrPort(buf)
	if err != nil || string(buf[:n]) != "after" {
		t.Fatalf("after the queue: %v %q (want the socket's datagram)", err, buf[:n])
	}
}

type syscallRawConn = syscall.RawConn

func setReuseAddr(fd int) error {
	return syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1)
}

// While the only call's PBX sends, the call's silence filler has no
// backstop timer of its own (tick): when both the PBX and then the tab
// fall silent, the quiet socket's closing makes it send again, so the far
// end's stream does not stop.
func TestQuietSocketClosingWakesTheFiller(t *testing.T) {
	b, far, _, tab := quietCall(t)
	far.SetDirection(RecvOnly) // the far end stops sending
	tab.stop()                 // and so does the tab's microphone
	waitFor(t, "the quiet socket closes", func() bool { return !b.quieting() })
	n := far.Stats().PacketsReceived
	waitFor(t, "the far end gets the filler's packets", func() bool { return far.Stats().PacketsReceived >= n+25 })
}

// When the quiet socket cannot be opened (here the process is out of file
// descriptors: socket(2) fails with EMFILE), the tab's packets stay on the
// ICE socket, read as they come: the far end still hears the tab and the
// tab the far end. It is tried again quietRetry later, and then opens.
func TestQuietSocketCannotOpen(t *testing.T) {
	b, far, farHeard, tab := quietCall(t)
	f := b.quietF.Load()
	if f == nil {
		t.Fatal("no quiet socket")
	}
	far.SetDirection(RecvOnly)
	waitFor(t, "the quiet socket closes when the far end is silent", func() bool { return !b.quieting() })

	// No descriptor left: the lowest free one is the limit.
	var orig syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &orig); err != nil {
		t.Fatal(err)
	}
	free, err := syscall.Dup(0)
	if err != nil {
		t.Fatal(err)
	}
	syscall.Close(free)
	low := orig
	low.Cur = uint64(free)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Fatal(err)
	}
	restored := false
	restore := func() {
		if !restored {
			restored = true
			if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &orig); err != nil {
				t.Error(err)
			}
		}
	}
	defer restore()

	far.SetDirection(SendRecv)
	tried := func() bool {
		f.qmu.Lock()
		defer f.qmu.Unlock()
		return f.quietNot.After(time.Now())
	}
	waitFor(t, "an attempt to open the quiet socket fails", tried)
	in, q := b.fastIn.Load(), b.quietIn.Load()
	farHeard.reset()
	farHeard.take(t, pcmRate/4)
	assertTone(t, "the far end hears the tab (ICE socket)", farHeard.take(t, pcmRate/2), pcmRate, 440)
	tab.heard.reset()
	tab.heard.take(t, pcmRate/4)
	assertTone(t, "the tab hears the far end", tab.heard.take(t, pcmRate/2), pcmRate, 1000)
	if b.quieting() || b.quietIn.Load() != q {
		t.Fatalf("quiet socket open with no descriptor left (%d datagrams on it)", b.quietIn.Load()-q)
	}
	if got := b.fastIn.Load() - in; got < 20 {
		t.Fatalf("%d packets from the tab on the ICE socket", got)
	}
	f.qmu.Lock()
	wait := time.Until(f.quietNot)
	f.qmu.Unlock()
	if wait <= 0 || wait > quietRetry {
		t.Fatalf("next attempt in %v, want within %v", wait, quietRetry)
	}

	// Descriptors again; the retry's time is made now rather than waited.
	restore()
	f.qmu.Lock()
	f.quietNot = time.Now()
	f.qmu.Unlock()
	waitFor(t, "the quiet socket opens on the retry", func() bool { return b.quieting() && b.quietIn.Load() >= q+10 })
	farHeard.reset()
	assertTone(t, "the far end hears the tab (quiet socket again)", farHeard.take(t, pcmRate/2), pcmRate, 440)
}
