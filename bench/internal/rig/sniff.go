//go:build linux

package rig

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Flow is one direction of UDP traffic by ports (loopback: the addresses
// tell nothing apart).
type Flow struct{ Src, Dst uint16 }

// Sniffer records when RTP datagrams arrive on loopback, with the kernel's
// time stamps (an AF_PACKET socket, SO_TIMESTAMPNS): the timing a receiver
// sees, not when this program got round to reading. It needs root in its
// network namespace (unshare -n gives that).
type Sniffer struct {
	fd   int
	mu   sync.Mutex
	on   bool
	seen map[Flow][]int64 // arrival times, ns
	done chan struct{}
}

// Sniff starts reading loopback; Start and Stop delimit what is kept.
func Sniff() (*Sniffer, error) {
	proto := uint16(syscall.ETH_P_IP)
	proto = proto<<8 | proto>>8 // network byte order
	fd, err := syscall.Socket(syscall.AF_PACKET, syscall.SOCK_DGRAM, int(proto))
	if err != nil {
		return nil, fmt.Errorf("packet socket: %w", err)
	}
	if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_TIMESTAMPNS, 1); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	// Only UDP reaches the socket (a load test's TCP on loopback would
	// flood it and cost drops): IP protocol, byte 9 of the IP header, is 17.
	udpOnly := []unix.SockFilter{
		{Code: 0x30, K: 9},                // ldb [9]
		{Code: 0x15, Jt: 0, Jf: 1, K: 17}, // jeq #17
		{Code: 0x06, K: 0xffff},           // ret #65535
		{Code: 0x06, K: 0},                // ret #0
	}
	prog := unix.SockFprog{Len: uint16(len(udpOnly)), Filter: &udpOnly[0]}
	if err := unix.SetsockoptSockFprog(fd, unix.SOL_SOCKET, unix.SO_ATTACH_FILTER, &prog); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("packet filter: %w", err)
	}
	_ = syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_RCVBUFFORCE, 8<<20)
	tv := syscall.Timeval{Usec: 200000}
	_ = syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv)
	s := &Sniffer{fd: fd, seen: map[Flow][]int64{}, done: make(chan struct{})}
	go s.loop()
	return s, nil
}

func (s *Sniffer) loop() {
	buf := make([]byte, 2048)
	oob := make([]byte, 128)
	for {
		select {
		case <-s.done:
			return
		default:
		}
		n, oobn, _, from, err := syscall.Recvmsg(s.fd, buf, oob, 0)
		if err != nil {
			continue // the timeout: look at done again
		}
		if ll, ok := from.(*syscall.SockaddrLinklayer); !ok || ll.Pkttype != syscall.PACKET_HOST {
			continue // loopback shows each datagram outgoing and incoming
		}
		p := buf[:n]
		if len(p) < 20 || p[0]>>4 != 4 || p[9] != syscall.IPPROTO_UDP {
			continue
		}
		ihl := int(p[0]&0x0f) * 4
		if len(p) < ihl+8+12 {
			continue
		}
		udp := p[ihl:]
		rtp := udp[8:]
		if rtp[0]>>6 != 2 || (rtp[1] >= 192 && rtp[1] <= 223) {
			continue // not RTP (RTCP, STUN, DTLS)
		}
		var at int64
		if msgs, err := syscall.ParseSocketControlMessage(oob[:oobn]); err == nil {
			for _, m := range msgs {
				if m.Header.Level == syscall.SOL_SOCKET && m.Header.Type == syscall.SCM_TIMESTAMPNS && len(m.Data) >= int(unsafe.Sizeof(syscall.Timespec{})) {
					at = (*syscall.Timespec)(unsafe.Pointer(&m.Data[0])).Nano()
				}
			}
		}
		if at == 0 {
			at = time.Now().UnixNano()
		}
		f := Flow{binary.BigEndian.Uint16(udp[0:]), binary.BigEndian.Uint16(udp[2:])}
		s.mu.Lock()
		if s.on {
			s.seen[f] = append(s.seen[f], at)
		}
		s.mu.Unlock()
	}
}

// Start forgets what was seen and records from now on.
func (s *Sniffer) Start() {
	s.mu.Lock()
	s.on, s.seen = true, map[Flow][]int64{}
	s.mu.Unlock()
}

// Stop ends recording and returns the arrival times per flow.
func (s *Sniffer) Stop() map[Flow][]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.on = false
	return s.seen
}

// Close ends the sniffer.
func (s *Sniffer) Close() {
	close(s.done)
	<-time.After(300 * time.Millisecond) // the reader's timeout
	syscall.Close(s.fd)
}

// Gaps are the times between successive arrivals: median, 99th
// percentile and largest, in ms.
func Gaps(at []int64) (p50, p99, max float64) {
	if len(at) < 2 {
		return 0, 0, 0
	}
	g := make([]float64, 0, len(at)-1)
	for i := 1; i < len(at); i++ {
		g = append(g, float64(at[i]-at[i-1])/1e6)
	}
	sort.Float64s(g)
	return g[len(g)/2], g[len(g)*99/100], g[len(g)-1]
}

// UDPPorts lists the local ports of the UDP sockets process pid holds
// (its descriptors matched with /proc/net/udp of this namespace).
func UDPPorts(pid int) map[uint16]bool {
	inodes := map[string]bool{}
	links, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
	for _, l := range links {
		t, err := os.Readlink(l)
		if err == nil && strings.HasPrefix(t, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(t, "socket:["), "]")] = true
		}
	}
	ports := map[uint16]bool{}
	for _, table := range []string{"/proc/net/udp", "/proc/net/udp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fs := strings.Fields(sc.Text())
			if len(fs) < 10 || !inodes[fs[9]] {
				continue
			}
			if i := strings.LastIndexByte(fs[1], ':'); i >= 0 {
				if p, err := strconv.ParseUint(fs[1][i+1:], 16, 16); err == nil {
					ports[uint16(p)] = true
				}
			}
		}
		f.Close()
	}
	return ports
}

// Delays pairs each packet of out with the last packet of in that came
// before it and returns the median, 99th percentile and largest of those
// delays in ms: for a relay, the time it held each packet, apart from how
// unevenly in arrived (in and out in time order, as Sniff returns them).
func Delays(in, out []int64) (p50, p99, max float64) {
	d := make([]float64, 0, len(out))
	for _, t := range out {
		i := sort.Search(len(in), func(i int) bool { return in[i] > t }) - 1
		if i < 0 {
			continue // before the first packet in
		}
		d = append(d, float64(t-in[i])/1e6)
	}
	if len(d) == 0 {
		return 0, 0, 0
	}
	sort.Float64s(d)
	return d[len(d)/2], d[len(d)*99/100], d[len(d)-1]
}
