package audio

import (
	"errors"
	"net"
	"net/netip"
	"os"
	"testing"
	"time"
)

// TestRawUDP sends through rawUDP's raw system calls between sockets of
// both address families (IPv4 to a dual-stack socket is written as
// ::ffff:a.b.c.d) and checks the sender's address, deadlines and close.
func TestRawUDP(t *testing.T) {
	listen := func(network, addr string) *rawUDP {
		t.Helper()
		c, err := net.ListenUDP(network, net.UDPAddrFromAddrPort(netip.MustParseAddrPort(addr)))
		if err != nil {
			t.Skipf("%s %s: %v", network, addr, err)
		}
		t.Cleanup(func() { c.Close() })
		return newRawUDP(c)
	}
	cases := []struct{ name, aNet, aAddr, bNet, bAddr, dst string }{
		{"ipv4", "udp4", "127.0.0.1:0", "udp4", "127.0.0.1:0", "127.0.0.1"},
		{"ipv6", "udp6", "[::1]:0", "udp6", "[::1]:0", "::1"},
		{"ipv4 to dual-stack", "udp4", "127.0.0.1:0", "udp", "[::]:0", "127.0.0.1"},
		{"dual-stack to ipv4", "udp", "[::]:0", "udp4", "127.0.0.1:0", "127.0.0.1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, b := listen(tc.aNet, tc.aAddr), listen(tc.bNet, tc.bAddr)
			to := netip.AddrPortFrom(netip.MustParseAddr(tc.dst), uint16(b.LocalAddr().(*net.UDPAddr).Port))
			if _, err := a.WriteToAddrPort([]byte("hello"), to); err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, 64)
			b.SetReadDeadline(time.Now().Add(5 * time.Second))
			n, from, err := b.ReadFromAddrPort(buf)
			if err != nil || string(buf[:n]) != "hello" {
				t.Fatalf("read %q, %v", buf[:n], err)
			}
			if int(from.Port()) != a.LocalAddr().(*net.UDPAddr).Port || from.Addr().Unmap().String() != tc.dst {
				t.Fatalf("from %v, want %s port %d", from, tc.dst, a.LocalAddr().(*net.UDPAddr).Port)
			}
			// The reply through the net.PacketConn methods takes the same path.
			if _, err := b.WriteTo([]byte("back"), net.UDPAddrFromAddrPort(from)); err != nil {
				t.Fatal(err)
			}
			a.SetReadDeadline(time.Now().Add(5 * time.Second))
			if n, _, err := a.ReadFromUDP(buf); err != nil || string(buf[:n]) != "back" {
				t.Fatalf("reply %q, %v", buf[:n], err)
			}
		})
	}
	t.Run("deadline and close", func(t *testing.T) {
		a := listen("udp4", "127.0.0.1:0")
		a.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
		if _, _, err := a.ReadFromAddrPort(make([]byte, 64)); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("after the deadline: %v", err)
		}
		a.SetReadDeadline(time.Time{})
		done := make(chan error, 1)
		go func() {
			_, _, err := a.ReadFromAddrPort(make([]byte, 64))
			done <- err
		}()
		a.Close()
		if err := <-done; !errors.Is(err, net.ErrClosed) {
			t.Fatalf("after close: %v", err)
		}
	})
}
