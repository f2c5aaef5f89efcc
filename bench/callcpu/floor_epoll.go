package main

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The epoll relays of the floor (issue 20): is the netpoller's relay really
// the least a Go process can spend per packet? Here one goroutine, locked
// to its thread, waits in epoll_wait itself on both sockets (which the
// runtime's netpoller never sees) and reads and writes with raw system
// calls. Per packet that is epoll_wait, recvfrom and sendto on one thread:
// no hand-off to another thread, no netpoller, no scheduler round.
//
// epoll: epoll_wait as an ordinary system call (x/sys/unix, i.e.
// syscall.Syscall6): the thread keeps its P in the syscall state, and
// sysmon, which cannot sleep deeply while a P is not idle, takes the P
// away after 10 ms (retake), so each wake may find its P gone.
//
// epollblock: the P is handed back before the wait (the runtime's
// entersyscallblock, as its own blocking waits do), so while the relay
// sleeps every P is idle and sysmon may sleep deeply; each wake takes an
// idle P again in exitsyscall.
//
// batch, batchblock: fewer wake-ups than packets: the thread is woken by
// the first stream only and reads both in that wake (a timeout of 25 ms
// bounds the second stream's wait should the first stop). The second
// stream's packets wait in the socket until then: up to one packet time.

//go:linkname entersyscallblock runtime.entersyscallblock
func entersyscallblock()

//go:linkname exitsyscall runtime.exitsyscall
func exitsyscall()

// epollWaitNoP waits without holding a P. nosplit: between the two runtime
// calls the stack must not grow.
//
//go:nosplit
func epollWaitNoP(ep int, ev *unix.EpollEvent, n, msec int) (int, syscall.Errno) {
	entersyscallblock()
	r, _, e := syscall.RawSyscall6(syscall.SYS_EPOLL_PWAIT, uintptr(ep), uintptr(unsafe.Pointer(ev)), uintptr(n), uintptr(msec), 0, 0)
	exitsyscall()
	return int(r), e
}

// relayNoP is the whole relay as one system call to the runtime: the
// thread hands its P back once and never runs Go code that needs one
// again, looping over epoll_wait, recvfrom and sendto alone (what a C
// relay costs; no Go code that needs a P, such as SRTP, could run here).
// nosplit, like every function it calls, as the stack cannot grow.
//
//go:nosplit
func relayNoP(ep int, ev *unix.EpollEvent, in, out *[2]int, to *[2]syscall.RawSockaddrInet4, buf *[1500]byte) {
	entersyscallblock()
	for {
		n, _, e := syscall.RawSyscall6(syscall.SYS_EPOLL_PWAIT, uintptr(ep), uintptr(unsafe.Pointer(ev)), 1, ^uintptr(0), 0, 0)
		if e != 0 || n != 1 {
			continue
		}
		i := ev.Fd & 1
		r, _, e := syscall.RawSyscall6(syscall.SYS_RECVFROM, uintptr(in[i]), uintptr(unsafe.Pointer(&buf[0])), 1500, 0, 0, 0)
		if e != 0 {
			continue
		}
		_, _, _ = syscall.RawSyscall6(syscall.SYS_SENDTO, uintptr(out[i]), uintptr(unsafe.Pointer(&buf[0])), r, 0,
			uintptr(unsafe.Pointer(&to[i])), syscall.SizeofSockaddrInet4)
	}
}

// udp4 is a non-blocking UDP socket on 127.0.0.1 that the netpoller does
// not know.
func udp4() (int, uint16) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		os.Exit(1)
	}
	if unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}) != nil {
		os.Exit(1)
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		os.Exit(1)
	}
	return fd, uint16(sa.(*unix.SockaddrInet4).Port)
}

func epollChild(mode string) {
	runtime.LockOSThread()
	fd1, p1 := udp4()
	fd2, p2 := udp4()
	fmt.Println(p1, p2, unix.Gettid())
	var a, b uint16
	if _, err := fmt.Scan(&a, &b); err != nil {
		os.Exit(1)
	}
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		os.Exit(1)
	}
	batch := mode == "batch" || mode == "batchblock"
	noP := mode == "epollblock" || mode == "batchblock"
	for i, fd := range []int{fd1, fd2} {
		if batch && i == 1 {
			break // woken by the first stream only
		}
		if unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, fd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(i)}) != nil {
			os.Exit(1)
		}
	}
	// what fd1 gets goes out of fd2 to the first peer, and the other way
	in := [2]int{fd1, fd2}
	out := [2]int{fd2, fd1}
	var to [2]syscall.RawSockaddrInet4
	for i, port := range []uint16{a, b} {
		to[i] = syscall.RawSockaddrInet4{Family: syscall.AF_INET, Addr: [4]byte{127, 0, 0, 1}, Port: port<<8 | port>>8}
	}
	if mode == "nop" {
		var ev unix.EpollEvent
		relayNoP(ep, &ev, &in, &out, &to, new([1500]byte))
	}
	buf := make([]byte, 1500)
	relay := func(i int) bool { // one datagram, if any
		r, _, e := syscall.RawSyscall6(syscall.SYS_RECVFROM, uintptr(in[i]), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), 0, 0, 0)
		if e != 0 {
			return false
		}
		_, _, _ = syscall.RawSyscall6(syscall.SYS_SENDTO, uintptr(out[i]), uintptr(unsafe.Pointer(&buf[0])), r, 0,
			uintptr(unsafe.Pointer(&to[i])), syscall.SizeofSockaddrInet4)
		return true
	}
	timeout := -1
	if batch {
		timeout = 25
	}
	var ev [2]unix.EpollEvent
	for {
		var n int
		if noP {
			r, e := epollWaitNoP(ep, &ev[0], len(ev), timeout)
			if e == syscall.EINTR {
				continue
			}
			if e != 0 {
				os.Exit(1)
			}
			n = r
		} else {
			r, err := unix.EpollWait(ep, ev[:], timeout)
			if err == unix.EINTR {
				continue
			}
			if err != nil {
				os.Exit(1)
			}
			n = r
		}
		if batch {
			for relay(0) {
			}
			for relay(1) {
			}
			continue
		}
		// level-triggered: a second datagram waiting wakes the next
		// epoll_wait at once, so one read per ready socket saves the
		// recvfrom that would only say EAGAIN
		for _, e := range ev[:n] {
			relay(int(e.Fd))
		}
	}
}
