//go:build linux

package audio

import (
	"net"
	"net/netip"
	"syscall"
	"unsafe"
)

// rawUDP is a UDP socket whose per-packet reads and writes are raw system
// calls on the non-blocking socket, with the waiting done by the Go
// netpoller (syscall.RawConn), as net.UDPConn does it, minus the runtime's
// syscall bookkeeping. A call's packets come 50 a second each way from
// clocks of their own, so the process goes idle between almost every two
// of them; the first ordinary system call after idling wakes the runtime's
// monitor thread (sysmon), which then polls every 20 µs until the process
// is idle again. In a profile of one bridged call that monitor was 30 % of
// the process's CPU. recvfrom and sendto on a non-blocking UDP socket never
// block, so the scheduler need not be told about them.
type rawUDP struct {
	*net.UDPConn
	rc    syscall.RawConn
	inet6 bool // an AF_INET6 socket: IPv4 peers are written as ::ffff:a.b.c.d
}

func newRawUDP(c *net.UDPConn) *rawUDP {
	u := &rawUDP{UDPConn: c}
	rc, err := c.SyscallConn()
	if err != nil {
		return u // rc nil: the plain methods
	}
	_ = rc.Control(func(fd uintptr) {
		if sa, err := syscall.Getsockname(int(fd)); err == nil {
			_, u.inet6 = sa.(*syscall.SockaddrInet6)
		}
	})
	u.rc = rc
	return u
}

// ReadFromAddrPort reads one datagram (pion/ice uses this method when the
// connection has it).
func (u *rawUDP) ReadFromAddrPort(b []byte) (int, netip.AddrPort, error) {
	if u.rc == nil || len(b) == 0 {
		return u.UDPConn.ReadFromUDPAddrPort(b)
	}
	var (
		n    int
		from netip.AddrPort
		fail syscall.Errno
		rsa  syscall.RawSockaddrAny
	)
	err := u.rc.Read(func(fd uintptr) bool {
		for {
			l := uint32(syscall.SizeofSockaddrAny)
			r, _, e := syscall.RawSyscall6(syscall.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)),
				0, uintptr(unsafe.Pointer(&rsa)), uintptr(unsafe.Pointer(&l)))
			switch e {
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false // drained: wait for the netpoller
			}
			n, fail = int(r), e
			return true
		}
	})
	if err != nil {
		return 0, netip.AddrPort{}, err
	}
	if fail != 0 {
		return 0, netip.AddrPort{}, &net.OpError{Op: "read", Net: "udp", Source: u.LocalAddr(), Err: fail}
	}
	from = addrPortOf(&rsa)
	return n, from, nil
}

// WriteToAddrPort sends one datagram to to.
func (u *rawUDP) WriteToAddrPort(b []byte, to netip.AddrPort) (int, error) {
	if u.rc == nil {
		return u.UDPConn.WriteToUDPAddrPort(b, to)
	}
	sa, l, ok := u.sockaddr(to)
	if !ok {
		return u.UDPConn.WriteToUDPAddrPort(b, to)
	}
	var p unsafe.Pointer
	if len(b) > 0 {
		p = unsafe.Pointer(&b[0])
	}
	var fail syscall.Errno
	err := u.rc.Write(func(fd uintptr) bool {
		for {
			_, _, e := syscall.RawSyscall6(syscall.SYS_SENDTO, fd, uintptr(p), uintptr(len(b)), 0, uintptr(sa), uintptr(l))
			switch e {
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false
			}
			fail = e
			return true
		}
	})
	if err != nil {
		return 0, err
	}
	if fail != 0 {
		return 0, &net.OpError{Op: "write", Net: "udp", Source: u.LocalAddr(), Addr: net.UDPAddrFromAddrPort(to), Err: fail}
	}
	return len(b), nil
}

// sockaddr is to in the socket's address family.
func (u *rawUDP) sockaddr(to netip.AddrPort) (unsafe.Pointer, uint32, bool) {
	a := to.Addr()
	port := to.Port()
	if !u.inet6 {
		if !a.Unmap().Is4() {
			return nil, 0, false
		}
		sa := &syscall.RawSockaddrInet4{Family: syscall.AF_INET, Addr: a.Unmap().As4()}
		sa.Port = port<<8 | port>>8 // network byte order
		return unsafe.Pointer(sa), syscall.SizeofSockaddrInet4, true
	}
	if a.Zone() != "" {
		return nil, 0, false // a scope id needs the interface index: leave it to net
	}
	sa := &syscall.RawSockaddrInet6{Family: syscall.AF_INET6, Addr: a.As16()}
	sa.Port = port<<8 | port>>8
	return unsafe.Pointer(sa), syscall.SizeofSockaddrInet6, true
}

// addrPortOf reads the sender's address the way net.UDPConn reports it.
func addrPortOf(rsa *syscall.RawSockaddrAny) netip.AddrPort {
	switch rsa.Addr.Family {
	case syscall.AF_INET:
		sa := (*syscall.RawSockaddrInet4)(unsafe.Pointer(rsa))
		return netip.AddrPortFrom(netip.AddrFrom4(sa.Addr), sa.Port<<8|sa.Port>>8)
	case syscall.AF_INET6:
		sa := (*syscall.RawSockaddrInet6)(unsafe.Pointer(rsa))
		return netip.AddrPortFrom(netip.AddrFrom16(sa.Addr), sa.Port<<8|sa.Port>>8)
	}
	return netip.AddrPort{}
}
