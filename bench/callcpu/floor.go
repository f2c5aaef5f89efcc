package main

import (
	"bufio"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/pion/rtp"
	"github.com/pion/srtp/v3"
	"github.com/softphone/softphone/bench/internal/rig"
)

// The floor (issue 20): what any Go process on this machine spends to
// relay the call's two streams, 50 packets a second each way, received and
// sent with raw system calls under the netpoller as the phone does, with
// no SRTP, no rewriting and nothing else in the process. A call through
// the phone cannot cost less than this while each packet wakes a thread;
// it is measured here in the same run as the call.

// relayChild is the relay process (callcpu started again with relayArg):
// it prints its two ports, reads the two peers' ports, and forwards what
// socket 1 gets to the first peer and what socket 2 gets to the second.
const relayArg = "-floor-relay-child"

func relayChild(mode string) {
	// Something else waits in the netpoller, as the phone's listeners do:
	// the runtime then keeps a thread blocked in its epoll_wait while idle.
	if l, err := net.Listen("tcp4", "127.0.0.1:0"); err == nil {
		go func() { _, _ = l.Accept() }()
	}
	if mode != "netpoll" && mode != "netbatch" && mode != "netsrtp" {
		epollChild(mode)
		return
	}
	c1, err1 := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	c2, err2 := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err1 != nil || err2 != nil {
		os.Exit(1)
	}
	fmt.Println(c1.LocalAddr().(*net.UDPAddr).Port, c2.LocalAddr().(*net.UDPAddr).Port, 0)
	var a, b uint16
	if _, err := fmt.Scan(&a, &b); err != nil {
		os.Exit(1)
	}
	if mode == "netbatch" || mode == "netsrtp" {
		netBatch(c1, c2, a, b, mode == "netsrtp")
		return
	}
	go forward(c1, c2, a)
	forward(c2, c1, b)
}

// netBatch is the netpoller's relay woken by the first stream only: each
// wake forwards what the first socket holds and then what the second one
// holds, read without waiting. The second stream's packets wait in their
// socket for the first's next packet, up to one packet time (a product
// would need a backstop timer for a first stream that stops; none here).
// The second socket is taken out of the netpoller (below).
//
// With withSRTP it also does the phone's SRTP work on each packet: the
// first stream's packets are encrypted before they go on (as the PBX's
// toward the tab) and the second's decrypted (as the tab's toward the
// PBX), with the profile browsers choose (floorSRTP).
func netBatch(c1, c2 *net.UDPConn, a, b uint16, withSRTP bool) {
	r1, err1 := c1.SyscallConn()
	r2, err2 := c2.SyscallConn()
	if err1 != nil || err2 != nil {
		return
	}
	buf := make([]byte, 1500)
	sa := [2]syscall.RawSockaddrInet4{
		{Family: syscall.AF_INET, Addr: [4]byte{127, 0, 0, 1}, Port: a<<8 | a>>8},
		{Family: syscall.AF_INET, Addr: [4]byte{127, 0, 0, 1}, Port: b<<8 | b>>8},
	}
	var fd1, fd2 uintptr
	_ = r1.Control(func(fd uintptr) { fd1 = fd })
	_ = r2.Control(func(fd uintptr) { fd2 = fd })
	// The second socket must not be in the netpoller's epoll set at all: a
	// datagram on any socket it knows wakes the thread waiting there, read
	// or not. So the relay moves to a duplicate of it and closes the
	// original, which takes it out of that set.
	dup, _, e := syscall.RawSyscall(syscall.SYS_FCNTL, fd2, syscall.F_DUPFD_CLOEXEC, 0)
	if e != 0 || c2.Close() != nil {
		return
	}
	fd2 = dup
	in, out := [2]uintptr{fd1, fd2}, [2]uintptr{fd2, fd1}
	var enc, dec *srtp.Context
	if withSRTP {
		enc, dec = floorSRTP(), floorSRTP()
	}
	var hdr rtp.Header
	sec := make([]byte, 1500)
	relay := func(i int) bool {
		r, _, e := syscall.RawSyscall6(syscall.SYS_RECVFROM, in[i], uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), 0, 0, 0)
		if e != 0 {
			return false
		}
		p := buf[:r]
		switch {
		case enc == nil:
		case i == 0:
			p, _ = enc.EncryptRTP(sec[:0], p, &hdr)
		default:
			p, _ = dec.DecryptRTP(sec[:0], p, &hdr)
		}
		if len(p) == 0 {
			return true
		}
		_, _, _ = syscall.RawSyscall6(syscall.SYS_SENDTO, out[i], uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)), 0,
			uintptr(unsafe.Pointer(&sa[i])), syscall.SizeofSockaddrInet4)
		return true
	}
	wait := func(uintptr) bool { // drain both; wait (false) only when the first had nothing
		got := relay(0)
		for relay(0) {
		}
		for relay(1) {
		}
		return got
	}
	for r1.Read(wait) == nil {
	}
}

func forward(in, out *net.UDPConn, port uint16) {
	rin, err1 := in.SyscallConn()
	rout, err2 := out.SyscallConn()
	if err1 != nil || err2 != nil {
		return
	}
	buf := make([]byte, 1500)
	n := 0
	sa := syscall.RawSockaddrInet4{Family: syscall.AF_INET, Addr: [4]byte{127, 0, 0, 1}, Port: port<<8 | port>>8}
	read := func(fd uintptr) bool {
		r, _, e := syscall.RawSyscall6(syscall.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), 0, 0, 0)
		if e == syscall.EAGAIN {
			return false
		}
		n = int(r)
		return true
	}
	write := func(fd uintptr) bool {
		_, _, e := syscall.RawSyscall6(syscall.SYS_SENDTO, fd, uintptr(unsafe.Pointer(&buf[0])), uintptr(n), 0,
			uintptr(unsafe.Pointer(&sa)), syscall.SizeofSockaddrInet4)
		return e != syscall.EAGAIN
	}
	for {
		if rin.Read(read) != nil {
			return
		}
		_ = rout.Write(write)
	}
}

// floorModes are the relays measured, in this order (floor_epoll.go).
var floorModes = map[string]string{
	"netpoll":    "raw recvfrom/sendto, waits in the netpoller (the phone today)",
	"netbatch":   "as netpoll, woken by the first stream only, both read in that wake (the second waits up to 20 ms)",
	"netsrtp":    "as netbatch, with the first stream encrypted and the second decrypted (SRTP, AES-128-GCM)",
	"epoll":      "one thread locked, epoll_wait as a system call holding its P (sysmon takes it after 10 ms)",
	"epollblock": "one thread locked, epoll_wait after handing its P back at once (entersyscallblock)",
	"nop":        "one thread that never comes back to Go between packets: epoll_wait, recvfrom, sendto alone, as a C relay",
	"batch":      "as epoll, woken by the first stream only, both read in that wake (the second waits up to 20 ms)",
	"batchblock": "as epollblock, woken by the first stream only, both read in that wake",
}

// floor runs the relay for d with two peers in this process sending a PCMU
// sized packet every 20 ms each, and prints its CPU and wake-ups, in all
// and of each thread that woke (the relay's own thread is marked); it
// gives the CPU, in % of a core.
func floor(tb *rig.TB, d time.Duration, mode string) float64 {
	cmd := exec.Command(os.Args[0], relayArg, mode)
	in, out := rig.StartChild(tb, cmd, false)
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	var r1, r2, relayTid int
	if _, err := fmt.Fscan(bufio.NewReader(out), &r1, &r2, &relayTid); err != nil {
		tb.Fatal(err)
	}
	var peers [2]*net.UDPConn
	for i := range peers {
		c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			tb.Fatal(err)
		}
		defer c.Close()
		peers[i] = c
	}
	fmt.Fprintln(in, peers[0].LocalAddr().(*net.UDPAddr).Port, peers[1].LocalAddr().(*net.UDPAddr).Port)
	var got atomic.Int64
	stop := make(chan struct{})
	defer close(stop)
	for i, c := range peers {
		go func() { // what the relay forwards
			buf := make([]byte, 1500)
			for {
				if _, _, err := c.ReadFromUDPAddrPort(buf); err != nil {
					return
				}
				got.Add(1)
			}
		}()
		to := netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), uint16([]int{r1, r2}[i]))
		go func() { // its stream, 20 ms apart, the second 7 ms after the first
			time.Sleep(time.Duration(i) * 7 * time.Millisecond)
			pkt := make([]byte, 172)
			var ctx *srtp.Context // netsrtp: the second stream comes encrypted
			if mode == "netsrtp" && i == 1 {
				ctx = floorSRTP()
			}
			out := make([]byte, 1500)
			tk := time.NewTicker(20 * time.Millisecond)
			defer tk.Stop()
			for seq := uint16(0); ; seq++ {
				select {
				case <-stop:
					return
				case <-tk.C:
					h := rtp.Header{Version: 2, SequenceNumber: seq, Timestamp: uint32(seq) * 160, SSRC: uint32(7 + i)}
					_, _ = h.MarshalTo(pkt)
					p := pkt
					if ctx != nil {
						p, _ = ctx.EncryptRTP(out[:0], pkt, nil)
					}
					_, _ = c.WriteToUDPAddrPort(p, to)
				}
			}
		}()
	}
	time.Sleep(2 * time.Second)
	pid := cmd.Process.Pid
	t0, _ := rig.ThreadsOf(pid)
	c0, s0, g0, w0 := runTime(tb, pid), switches(tb, pid), got.Load(), time.Now()
	time.Sleep(d)
	c1, s1, g1, wall := runTime(tb, pid), switches(tb, pid), got.Load(), time.Since(w0)
	t1, _ := rig.ThreadsOf(pid)
	what := floorModes[mode]
	if mode != "netsrtp" {
		what += "; no SRTP"
	}
	pct := 100 * (c1 - c0).Seconds() / wall.Seconds()
	fmt.Printf("floor %-10s %.3f%% of a core, %.0f wake-ups/s, %.0f packets/s forwarded (%s)\n   threads:%s\n",
		mode+":", pct, float64(s1-s0)/wall.Seconds(), float64(g1-g0)/wall.Seconds(),
		what, threadLine(t0, t1, wall, relayTid))
	return pct
}

// threadLine lists the threads that woke over the stretch, busiest first:
// wake-ups/s and % of a core each; the relay's own thread is marked.
func threadLine(t0, t1 map[int]rig.Thread, wall time.Duration, relayTid int) string {
	type th struct {
		tid  int
		sw   float64
		cpu  float64
		wait string
	}
	var l []th
	for tid, b := range t1 {
		a := t0[tid]
		if sw := float64(b.Switches-a.Switches) / wall.Seconds(); sw >= 0.5 {
			l = append(l, th{tid, sw, 100 * (b.CPU - a.CPU).Seconds() / wall.Seconds(), b.Wait})
		}
	}
	sort.Slice(l, func(i, j int) bool { return l[i].sw > l[j].sw })
	var s strings.Builder
	for _, x := range l {
		mark := ""
		if x.tid == relayTid {
			mark = " (relay)"
		}
		fmt.Fprintf(&s, " %.0f/s %.3f%% [%s]%s;", x.sw, x.cpu, x.wait, mark)
	}
	return s.String()
}

// floorSRTP is an SRTP context with a fixed key: the relay's and its
// peer's are the same, so what one encrypts the other decrypts.
func floorSRTP() *srtp.Context {
	key, salt := make([]byte, 16), make([]byte, 12)
	for i := range key {
		key[i] = byte(i + 1)
	}
	c, err := srtp.CreateContext(key, salt, srtp.ProtectionProfileAeadAes128Gcm)
	if err != nil {
		panic(err)
	}
	return c
}
