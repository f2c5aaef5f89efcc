package sipua

import (
	"errors"
	"io"
	"net"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/internal/testpeer"
)

// TestIdleTCPConnectionsThenCall: about two thousand TCP connections from
// 33 addresses that never send a message. The phone keeps at most 64 per
// address and 1,024 in all (the rest are closed at once), a call over UDP
// works meanwhile, the idle ones are closed once the message timeout passes
// (shortened here from 32 s), and then a call over TCP works too.
func TestIdleTCPConnectionsThenCall(t *testing.T) {
	acc := sippAccount(t, testpeer.FreeUDPPort(t))
	p := startPhone(t, acc, "", autoAnswer)
	p.mu.Lock()
	st := p.stack
	p.mu.Unlock()
	st.guard.setTimeouts(3*time.Second, time.Minute)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(st.tcpPort))
	fds, heap := fdsAndHeap()

	var conns []net.Conn
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	dial := func(from string) net.Conn {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 5 * time.Second}
		c, err := d.Dial("tcp4", addr)
		must(t, err)
		conns = append(conns, c)
		return c
	}
	first := make([]net.Conn, 0, 80)
	for range 80 {
		first = append(first, dial("127.0.1.1"))
	}
	for i := 2; i <= 33; i++ {
		for range 60 {
			dial("127.0.1." + strconv.Itoa(i))
		}
	}
	if !testpeer.WaitFor(10*time.Second, func() bool { return st.guard.open() == maxConnsTotal }) {
		t.Fatalf("%d inbound connections held, want %d", st.guard.open(), maxConnsTotal)
	}
	// The 65th to 80th from one address were closed at once.
	for i, c := range first[maxConnsPerIP:] {
		_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
		if _, err := c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) && !isReset(err) {
			t.Fatalf("connection %d from one address: %v, want closed", maxConnsPerIP+i+1, err)
		}
	}
	fdsPeak, heapPeak := fdsAndHeap()
	t.Logf("%d idle TCP connections (test process holds both ends): fds %d -> %d, heap %d -> %d KiB",
		len(conns), fds, fdsPeak, heap/1024, heapPeak/1024)

	dir := testpeer.SIPpDir(t)
	runSIPp(t, testpeer.SIPp(t, dir, "-sn", "uac", "127.0.0.1:"+strconv.Itoa(st.udpPort), "-s", "alice", "-d", "200",
		"-m", "1", "-p", itoa(testpeer.FreeUDPPort(t))), p)

	if !testpeer.WaitFor(15*time.Second, func() bool { return st.guard.open() == 0 }) {
		t.Fatalf("%d idle connections still open after the message timeout", st.guard.open())
	}
	for _, c := range conns {
		c.Close()
	}
	conns = nil
	runSIPp(t, testpeer.SIPp(t, dir, "-sn", "uac", "127.0.0.1:"+strconv.Itoa(st.tcpPort), "-t", "t1", "-s", "alice",
		"-d", "200", "-m", "1", "-p", strconv.Itoa(testpeer.FreeTCPPort(t))), p)
	fdsAfter, heapAfter := fdsAndHeap()
	t.Logf("after: fds %d, heap %d KiB", fdsAfter, heapAfter/1024)
}

func isReset(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && !op.Timeout()
}

// TestTCPConnectionIdleAfterMessage: a connection that carried a complete
// message (OPTIONS, answered 200 with Allow and Accept) is kept past the
// message timeout and closed once it has been idle for the idle timeout;
// a partial message is not a message.
func TestTCPConnectionIdleAfterMessage(t *testing.T) {
	acc := sippAccount(t, testpeer.FreeUDPPort(t))
	p := startPhone(t, acc, "")
	p.mu.Lock()
	st := p.stack
	p.mu.Unlock()
	const msgT, idleT = 500 * time.Millisecond, 2 * time.Second
	st.guard.setTimeouts(msgT, idleT)
	c, err := net.Dial("tcp4", net.JoinHostPort("127.0.0.1", strconv.Itoa(st.tcpPort)))
	must(t, err)
	defer c.Close()
	opts := "OPTIONS sip:alice@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/TCP 127.0.0.1:5999;branch=z9hG4bK-idle-1\r\n" +
		"From: <sip:probe@127.0.0.1>;tag=1\r\nTo: <sip:alice@127.0.0.1>\r\nCall-ID: idle-1\r\nCSeq: 1 OPTIONS\r\n" +
		"Max-Forwards: 70\r\nContent-Length: 0\r\n\r\n"
	_, err = c.Write([]byte(opts))
	must(t, err)
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 4096)
	n, err := c.Read(buf)
	must(t, err)
	answered := time.Now()
	res := string(buf[:n])
	for _, want := range []string{"SIP/2.0 200 OK", "Allow: INVITE, ACK, BYE, CANCEL, OPTIONS, NOTIFY, INFO, REFER", "Accept: application/sdp"} {
		if !strings.Contains(res, want) {
			t.Fatalf("OPTIONS answer lacks %q:\n%s", want, res)
		}
	}
	_, err = c.Read(buf) // blocks until the phone closes the connection
	if idle := time.Since(answered); !errors.Is(err, io.EOF) || idle < idleT-100*time.Millisecond {
		t.Fatalf("closed after %v idle (%v), want about %v", idle, err, idleT)
	}

	// Half a message, then nothing: closed after the message timeout.
	c2, err := net.Dial("tcp4", net.JoinHostPort("127.0.0.1", strconv.Itoa(st.tcpPort)))
	must(t, err)
	defer c2.Close()
	start := time.Now()
	_, err = c2.Write([]byte(opts[:40]))
	must(t, err)
	_ = c2.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err = c2.Read(buf)
	if took := time.Since(start); !errors.Is(err, io.EOF) || took > idleT {
		t.Fatalf("a partial message kept the connection %v (%v), want about %v", took, err, msgT)
	}
}

// TestTCPPeerThatNeverReads: a peer on TCP sends OPTIONS as fast as it
// can and never reads the answers. Once the answers back up, the phone
// reads no more from it and closes the connection when a write has waited
// the write timeout (shortened here from 10 s); the goroutines it took are
// given back, and a call over UDP works meanwhile. The socket buffers of
// both ends are made small, so the answers back up after a few dozen
// instead of a few megabytes. Each request became a goroutine stuck
// writing its answer for as long as the peer kept sending: 60,000 OPTIONS
// held about 48,000 goroutines and 250 MiB, and the connection stayed.
func TestTCPPeerThatNeverReads(t *testing.T) {
	acc := sippAccount(t, testpeer.FreeUDPPort(t))
	p := startPhone(t, acc, "", autoAnswer)
	p.mu.Lock()
	st := p.stack
	p.mu.Unlock()
	st.guard.write.Store(int64(time.Second))
	g0 := runtime.NumGoroutine()
	c, err := net.Dial("tcp4", net.JoinHostPort("127.0.0.1", strconv.Itoa(st.tcpPort)))
	must(t, err)
	defer c.Close()
	must(t, c.(*net.TCPConn).SetReadBuffer(4096))
	var gc *guardedConn
	if !testpeer.WaitFor(5*time.Second, func() bool {
		st.guard.mu.Lock()
		defer st.guard.mu.Unlock()
		gc = st.guard.byAddr[c.LocalAddr().String()]
		return gc != nil
	}) {
		t.Fatal("the phone did not take the connection")
	}
	must(t, gc.Conn.(*net.TCPConn).SetWriteBuffer(4096))
	peak, sent := 0, 0
	for ; sent < 60000; sent++ {
		opts := "OPTIONS sip:alice@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/TCP 127.0.0.1:5999;branch=z9hG4bK-nr" + strconv.Itoa(sent) + "\r\n" +
			"From: <sip:probe@127.0.0.1>;tag=1\r\nTo: <sip:alice@127.0.0.1>\r\nCall-ID: nr-" + strconv.Itoa(sent) + "\r\nCSeq: 1 OPTIONS\r\n" +
			"Max-Forwards: 70\r\nContent-Length: 0\r\n\r\n"
		// Once the phone reads no more, this write waits; it fails when
		// the phone closes the connection.
		_ = c.SetWriteDeadline(time.Now().Add(5 * time.Second))
		if _, err := c.Write([]byte(opts)); err != nil {
			break
		}
		if sent%500 == 0 {
			peak = max(peak, runtime.NumGoroutine())
		}
	}
	if !testpeer.WaitFor(10*time.Second, func() bool { return st.guard.open() == 0 }) {
		t.Fatalf("after %d requests the connection that reads nothing is still open (goroutines %d, at the start %d)",
			sent, runtime.NumGoroutine(), g0)
	}
	_, heap := fdsAndHeap()
	t.Logf("%d OPTIONS sent before the phone closed: goroutines %d at the start, peak %d; heap %d KiB", sent, g0, peak, heap/1024)
	if peak > g0+2000 || st.guard.timedOut.Load() == 0 {
		t.Fatalf("goroutines rose from %d to %d; closed by the write timeout: %d", g0, peak, st.guard.timedOut.Load())
	}
	if !testpeer.WaitFor(10*time.Second, func() bool { return runtime.NumGoroutine() < g0+100 }) {
		t.Fatalf("goroutines %d after the close, %d at the start", runtime.NumGoroutine(), g0)
	}
	dir := testpeer.SIPpDir(t)
	runSIPp(t, testpeer.SIPp(t, dir, "-sn", "uac", "127.0.0.1:"+strconv.Itoa(st.udpPort), "-s", "alice", "-d", "200",
		"-m", "1", "-p", itoa(testpeer.FreeUDPPort(t))), p)
}

// TestServerConnectsWhileStrangersHoldAll: strangers on 16 addresses hold
// all 1,024 inbound TCP connections the phone takes (each could keep its
// own by sending one message every few minutes). The account's server
// (127.0.0.1) still connects and its call over TCP rings and is answered:
// a PBX opens a connection to our Contact to deliver a call. It was
// refused like the strangers' 1,025th, so strangers could keep every
// incoming call of a TCP or TLS account away.
func TestServerConnectsWhileStrangersHoldAll(t *testing.T) {
	acc := sippAccount(t, testpeer.FreeUDPPort(t))
	p := startPhone(t, acc, "", autoAnswer)
	p.mu.Lock()
	st := p.stack
	p.mu.Unlock()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(st.tcpPort))
	var conns []net.Conn
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	for i := 1; i <= maxConnsTotal/maxConnsPerIP; i++ {
		for range maxConnsPerIP {
			d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.2." + strconv.Itoa(i))}, Timeout: 5 * time.Second}
			c, err := d.Dial("tcp4", addr)
			must(t, err)
			conns = append(conns, c)
		}
	}
	if !testpeer.WaitFor(10*time.Second, func() bool { return st.guard.open() == maxConnsTotal }) {
		t.Fatalf("%d inbound connections held, want %d", st.guard.open(), maxConnsTotal)
	}
	dir := testpeer.SIPpDir(t)
	runSIPp(t, testpeer.SIPp(t, dir, "-sn", "uac", addr, "-t", "t1", "-s", "alice",
		"-d", "200", "-m", "1", "-p", strconv.Itoa(testpeer.FreeTCPPort(t))), p)
}
