//go:build linux

package audio

import (
	"net"
	"net/netip"
	"sync"
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

	// The state of the read and of the write in progress lives here and
	// the functions handed to rc are made once, so a packet allocates
	// nothing (a closure per call would escape to the heap).
	rmu, wmu        sync.Mutex
	r, w            rawOp
	readFn, writeFn func(fd uintptr) bool
}

type rawOp struct {
	b     []byte
	n     int
	fail  syscall.Errno
	sa    syscall.RawSockaddrAny // the sender (read) or the destination (write)
	salen uint32
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
	u.readFn, u.writeFn = u.recvfrom, u.sendto
	return u
}

func (u *rawUDP) recvfrom(fd uintptr) bool {
	o := &u.r
	for {
		o.salen = syscall.SizeofSockaddrAny
		r, _, e := syscall.RawSyscall6(syscall.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&o.b[0])), uintptr(len(o.b)),
			0, uintptr(unsafe.Pointer(&o.sa)), uintptr(unsafe.Pointer(&o.salen)))
		switch e {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false // drained: wait for the netpoller
		}
		o.n, o.fail = int(r), e
		return true
	}
}

func (u *rawUDP) sendto(fd uintptr) bool {
	o := &u.w
	var p unsafe.Pointer
	if len(o.b) > 0 {
		p = unsafe.Pointer(&o.b[0])
	}
	for {
		_, _, e := syscall.RawSyscall6(syscall.SYS_SENDTO, fd, uintptr(p), uintptr(len(o.b)), 0,
			uintptr(unsafe.Pointer(&o.sa)), uintptr(o.salen))
		switch e {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		}
		o.fail = e
		return true
	}
}

// ReadFromAddrPort reads one datagram (pion/ice uses this method when the
// connection has it).
func (u *rawUDP) ReadFromAddrPort(b []byte) (int, netip.AddrPort, error) {
	if u.rc == nil || len(b) == 0 {
		return u.UDPConn.ReadFromUDPAddrPort(b)
	}
	u.rmu.Lock()
	defer u.rmu.Unlock()
	u.r.b = b
	err := u.rc.Read(u.readFn)
	u.r.b = nil
	if err != nil {
		return 0, netip.AddrPort{}, err
	}
	if u.r.fail != 0 {
		return 0, netip.AddrPort{}, &net.OpError{Op: "read", Net: "udp", Source: u.LocalAddr(), Err: u.r.fail}
	}
	return u.r.n, addrPortOf(&u.r.sa), nil
}

// WriteToAddrPort sends one datagram to to.
func (u *rawUDP) WriteToAddrPort(b []byte, to netip.AddrPort) (int, error) {
	if unspecified(to.Addr()) {
		return 0, errUnspecified
	}
	if u.rc == nil {
		return u.UDPConn.WriteToUDPAddrPort(b, to)
	}
	u.wmu.Lock()
	defer u.wmu.Unlock()
	if !u.sockaddr(to, &u.w) {
		return u.UDPConn.WriteToUDPAddrPort(b, to)
	}
	u.w.b = b
	err := u.rc.Write(u.writeFn)
	u.w.b = nil
	if err != nil {
		return 0, err
	}
	if u.w.fail != 0 {
		return 0, &net.OpError{Op: "write", Net: "udp", Source: u.LocalAddr(), Addr: net.UDPAddrFromAddrPort(to), Err: u.w.fail}
	}
	return len(b), nil
}

// sockaddr puts to into o in the socket's address family.
func (u *rawUDP) sockaddr(to netip.AddrPort, o *rawOp) bool {
	a := to.Addr()
	port := to.Port()
	if !u.inet6 {
		if !a.Unmap().Is4() {
			return false
		}
		sa := (*syscall.RawSockaddrInet4)(unsafe.Pointer(&o.sa))
		*sa = syscall.RawSockaddrInet4{Family: syscall.AF_INET, Addr: a.Unmap().As4()}
		sa.Port = port<<8 | port>>8 // network byte order
		o.salen = syscall.SizeofSockaddrInet4
		return true
	}
	if a.Zone() != "" {
		return false // a scope id needs the interface index: leave it to net
	}
	sa := (*syscall.RawSockaddrInet6)(unsafe.Pointer(&o.sa))
	*sa = syscall.RawSockaddrInet6{Family: syscall.AF_INET6, Addr: a.As16()}
	sa.Port = port<<8 | port>>8
	o.salen = syscall.SizeofSockaddrInet6
	return true
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
