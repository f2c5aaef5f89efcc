package testpeer

import (
	"encoding/binary"
	"net"
	"net/netip"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Packet is one IPv4 TCP or UDP packet a PacketCapture saw.
type Packet struct {
	Proto    string // "tcp" or "udp"
	Src, Dst netip.AddrPort
	Payload  []byte
}

// PacketCapture reads every packet of one interface of the test's network
// namespace with an AF_PACKET socket (Linux, root): nothing to start and
// nothing lost to a capture program's buffers (tshark's capture of a
// short TLS exchange on loopback came out empty now and then).
type PacketCapture struct {
	fd      int
	stopped chan struct{}
	mu      sync.Mutex
	pkts    []Packet
	done    chan struct{}
	once    sync.Once
}

// CapturePackets starts capturing on iface ("lo"); it stops when the test
// ends or at Stop.
func CapturePackets(t testing.TB, iface string) *PacketCapture {
	t.Helper()
	ifi, err := net.InterfaceByName(iface)
	if err != nil {
		t.Fatal(err)
	}
	const ethPAll = 0x0003
	proto := int(htons(ethPAll))
	// SOCK_DGRAM: packets without the link header, IP first.
	fd, err := syscall.Socket(syscall.AF_PACKET, syscall.SOCK_DGRAM, proto)
	if err != nil {
		t.Skipf("AF_PACKET socket: %v (needs root)", err)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrLinklayer{Protocol: htons(ethPAll), Ifindex: ifi.Index}); err != nil {
		syscall.Close(fd)
		t.Fatal(err)
	}
	// A big buffer: under load (the whole suite, -race) the reader falls
	// behind and a full buffer drops packets.
	if syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_RCVBUFFORCE, 32<<20) != nil {
		_ = syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_RCVBUF, 32<<20)
	}
	tv := syscall.NsecToTimeval(int64(100 * time.Millisecond))
	_ = syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv)
	c := &PacketCapture{fd: fd, done: make(chan struct{})}
	loop := ifi.Flags&net.FlagLoopback != 0
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		buf := make([]byte, 65536)
		for {
			select {
			case <-c.done:
				return
			default:
			}
			n, from, err := syscall.Recvfrom(fd, buf, 0)
			if err != nil {
				continue // the timeout: look at done again
			}
			// On loopback each packet passes twice (out, then in): keep one.
			// Elsewhere (a veth) what we send is only seen going out.
			if ll, ok := from.(*syscall.SockaddrLinklayer); ok && loop && ll.Pkttype == syscall.PACKET_OUTGOING {
				continue
			}
			if p, ok := parseIPv4(buf[:n]); ok {
				c.mu.Lock()
				c.pkts = append(c.pkts, p)
				c.mu.Unlock()
			}
		}
	}()
	c.stopped = stopped
	t.Cleanup(func() { c.Stop() })
	return c
}

// Stop ends the capture and gives what it saw, in order.
func (c *PacketCapture) Stop() []Packet {
	c.once.Do(func() {
		close(c.done)
		<-c.stopped
		syscall.Close(c.fd)
	})
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Packet(nil), c.pkts...)
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }

func parseIPv4(b []byte) (Packet, bool) {
	if len(b) < 20 || b[0]>>4 != 4 {
		return Packet{}, false
	}
	ihl := int(b[0]&0x0f) * 4
	total := int(binary.BigEndian.Uint16(b[2:4]))
	if total > len(b) || ihl < 20 || total < ihl {
		return Packet{}, false
	}
	src, _ := netip.AddrFromSlice(b[12:16])
	dst, _ := netip.AddrFromSlice(b[16:20])
	l4 := b[ihl:total]
	var p Packet
	switch b[9] {
	case 6:
		if len(l4) < 20 {
			return Packet{}, false
		}
		off := int(l4[12]>>4) * 4
		if off < 20 || off > len(l4) {
			return Packet{}, false
		}
		p = Packet{Proto: "tcp", Payload: append([]byte(nil), l4[off:]...)}
	case 17:
		if len(l4) < 8 {
			return Packet{}, false
		}
		p = Packet{Proto: "udp", Payload: append([]byte(nil), l4[8:]...)}
	default:
		return Packet{}, false
	}
	p.Src = netip.AddrPortFrom(src, binary.BigEndian.Uint16(l4[0:2]))
	p.Dst = netip.AddrPortFrom(dst, binary.BigEndian.Uint16(l4[2:4]))
	return p, true
}
