//go:build linux

package audio

import (
	"errors"
	"net"
	"net/netip"
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// quietSock is the tab's quiet socket (bridge_quiet.go): a UDP socket the
// Go runtime does not know, read and written with raw system calls, never
// waited on. The zero value is closed.
type quietSock struct {
	fd   int // the descriptor + 1, so the zero value is closed
	peer netip.AddrPort
}

var errQuietAddr = errors.New("audio: the quiet socket needs an IPv4 address and peer")

// openQuiet binds a socket to ice's address and connects it to peer. Both
// sockets allow the shared address only for the bind (SO_REUSEADDR), so
// no other program can bind it afterwards: for UDP the kernel lets a bind
// share an address only when both sockets have the option set.
func openQuiet(ice *localOnly, peer netip.AddrPort) (quietSock, error) {
	la, ok := ice.LocalAddr().(*net.UDPAddr)
	if !ok || ice.rc == nil {
		return quietSock{}, errQuietAddr
	}
	local := la.AddrPort()
	if !local.Addr().Unmap().Is4() || !peer.Addr().Unmap().Is4() {
		return quietSock{}, errQuietAddr
	}
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return quietSock{}, err
	}
	reuse := func(fd, on int) error {
		return syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, on)
	}
	var iceErr error
	setICE := func(on int) {
		_ = ice.rc.Control(func(ifd uintptr) {
			if e := reuse(int(ifd), on); e != nil && on == 1 {
				iceErr = e
			}
		})
	}
	setICE(1)
	err = reuse(fd, 1)
	if err == nil && iceErr == nil {
		err = syscall.Bind(fd, &syscall.SockaddrInet4{Port: int(local.Port()), Addr: local.Addr().Unmap().As4()})
	}
	setICE(0)
	_ = reuse(fd, 0)
	if err == nil {
		err = iceErr
	}
	if err == nil {
		err = syscall.Connect(fd, &syscall.SockaddrInet4{Port: int(peer.Port()), Addr: peer.Addr().Unmap().As4()})
	}
	if err != nil {
		_ = syscall.Close(fd)
		return quietSock{}, err
	}
	return quietSock{fd: fd + 1, peer: netip.AddrPortFrom(peer.Addr().Unmap(), peer.Port())}, nil
}

func (q quietSock) isOpen() bool { return q.fd != 0 }

// recv reads one datagram without waiting; false when none is there.
// Errors a connected socket reports (ECONNREFUSED after an ICMP port
// unreachable) are skipped.
func (q quietSock) recv(b []byte) (int, bool) {
	for range 4 {
		r, _, e := syscall.RawSyscall6(syscall.SYS_RECVFROM, uintptr(q.fd-1), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), 0, 0, 0)
		switch e {
		case 0:
			return int(r), true
		case syscall.EAGAIN:
			return 0, false
		}
	}
	return 0, false
}

// send writes one datagram to the peer; false when the kernel refused it.
func (q quietSock) send(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	_, _, e := syscall.RawSyscall6(syscall.SYS_SENDTO, uintptr(q.fd-1), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), 0, 0, 0)
	return e == 0
}

func (q quietSock) close() { _ = syscall.Close(q.fd - 1) }

// quietTimer is a timerfd the netpoller waits on: its expiry wakes the
// thread in the netpoller and hands it the timer's goroutine, as a packet
// does, and arming it is one system call, with no runtime timer kept.
type quietTimer struct {
	fd   int
	file *os.File
}

func newQuietTimer(fire func()) (*quietTimer, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), "quiet-timer")
	rc, err := f.SyscallConn()
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	go func() {
		var n [8]byte // the expiries since the last read
		expired := func(fd uintptr) bool {
			// a raw read: an ordinary system call wakes sysmon (see rawUDP)
			_, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&n[0])), uintptr(len(n)))
			return e != syscall.EAGAIN
		}
		for rc.Read(expired) == nil {
			fire()
		}
	}()
	return &quietTimer{fd: fd, file: f}, nil
}

// arm makes the timer go off once, d from now.
func (t *quietTimer) arm(d time.Duration) {
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(max(d, time.Millisecond).Nanoseconds())}
	_, _, _ = syscall.RawSyscall6(unix.SYS_TIMERFD_SETTIME, uintptr(t.fd), 0, uintptr(unsafe.Pointer(&spec)), 0, 0, 0)
}

func (t *quietTimer) close() { _ = t.file.Close() }
