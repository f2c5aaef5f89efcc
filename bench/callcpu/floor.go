package main

import (
	"bufio"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

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

func relayChild() {
	c1, err1 := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	c2, err2 := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err1 != nil || err2 != nil {
		os.Exit(1)
	}
	fmt.Println(c1.LocalAddr().(*net.UDPAddr).Port, c2.LocalAddr().(*net.UDPAddr).Port)
	var a, b uint16
	if _, err := fmt.Scan(&a, &b); err != nil {
		os.Exit(1)
	}
	go forward(c1, c2, a)
	forward(c2, c1, b)
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

// floor runs the relay for d with two peers in this process sending a PCMU
// sized packet every 20 ms each, and prints its CPU and wake-ups.
func floor(tb *rig.TB, d time.Duration) {
	cmd := exec.Command(os.Args[0], relayArg)
	in, out := rig.StartChild(tb, cmd, false)
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	var r1, r2 int
	if _, err := fmt.Fscan(bufio.NewReader(out), &r1, &r2); err != nil {
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
			tk := time.NewTicker(20 * time.Millisecond)
			defer tk.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tk.C:
					_, _ = c.WriteToUDPAddrPort(pkt, to)
				}
			}
		}()
	}
	time.Sleep(2 * time.Second)
	pid := cmd.Process.Pid
	c0, s0, g0, w0 := runTime(tb, pid), switches(tb, pid), got.Load(), time.Now()
	time.Sleep(d)
	c1, s1, g1, wall := runTime(tb, pid), switches(tb, pid), got.Load(), time.Since(w0)
	fmt.Printf("floor: a bare Go relay of two 50 packet/s streams (raw recvfrom/sendto, no SRTP): %.3f%% of a core, %.0f wake-ups/s, %.0f packets/s forwarded\n",
		100*(c1-c0).Seconds()/wall.Seconds(), float64(s1-s0)/wall.Seconds(), float64(g1-g0)/wall.Seconds())
}
