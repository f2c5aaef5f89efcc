package testpeer

import (
	"net"
	"os"
	"os/exec"
	"testing"
)

// Require skips the test when one of the programs is not installed, or fails
// it when the CI variable is "true".
func Require(t testing.TB, bins ...string) {
	t.Helper()
	for _, b := range bins {
		if _, err := exec.LookPath(b); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not installed; the test command installs it (README)", b)
			}
			t.Skipf("%s is not installed", b)
		}
	}
}

// FreeUDPPort returns a UDP port on 127.0.0.1 that was free a moment ago.
func FreeUDPPort(t testing.TB) int {
	t.Helper()
	c, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port
}

// FreeTCPPort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreeTCPPort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// FreeSIPPort returns a port free for both UDP and TCP on 127.0.0.1, with
// the next port free for TCP too.
func FreeSIPPort(t testing.TB) int {
	t.Helper()
	for i := 0; i < 50; i++ {
		// TCP on p and on p+1 too: baresip binds its SIP/TLS transport
		// on the port after sip_listen's (a taken one failed its start).
		p := FreeUDPPort(t)
		if p >= 65535 {
			continue
		}
		l, err := net.Listen("tcp4", net.JoinHostPort("127.0.0.1", itoa(p)))
		if err != nil {
			continue
		}
		l2, err := net.Listen("tcp4", net.JoinHostPort("127.0.0.1", itoa(p+1)))
		l.Close()
		if err == nil {
			l2.Close()
			return p
		}
	}
	t.Fatal("no port free for both UDP and TCP")
	return 0
}

// freeUDPRange finds n consecutive UDP ports that are free now.
func freeUDPRange(t testing.TB, n int) int {
	t.Helper()
	for try := 0; try < 100; try++ {
		base := FreeUDPPort(t)
		if base+n > 65535 {
			continue
		}
		ok := true
		for p := base; p < base+n && ok; p++ {
			c, err := net.ListenPacket("udp4", net.JoinHostPort("127.0.0.1", itoa(p)))
			if err != nil {
				ok = false
				break
			}
			c.Close()
		}
		if ok {
			return base
		}
	}
	t.Fatal("no free UDP port range")
	return 0
}
