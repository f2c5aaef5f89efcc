package audio

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"time"

	"github.com/pion/stun/v4"
)

// stunWait is a Binding request of a session waiting for its answer.
type stunWait struct {
	id  [stun.TransactionIDSize]byte
	res chan netip.AddrPort
}

// ErrSTUN is a STUN server that did not tell the public address.
var ErrSTUN = errors.New("audio: no answer from the STUN server")

// DiscoverPublic asks the STUN server (host:port) from the session's own
// RTP port which address and port the far side sees (RFC 8489 Binding,
// XOR-MAPPED-ADDRESS): behind a NAT that is where the PBX must send RTP,
// so it goes into our SDP. Retransmits per RFC 8489 6.2.1 (from 100 ms,
// doubling) until ctx ends. The answer is read by readLoop.
func (s *Session) DiscoverPublic(ctx context.Context, server string) (netip.AddrPort, error) {
	ua, err := net.ResolveUDPAddr("udp4", server)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("stun server %s: %w", server, err)
	}
	to := netip.AddrPortFrom(ua.AddrPort().Addr().Unmap(), ua.AddrPort().Port())
	m, err := stun.Build(stun.TransactionID, stun.BindingRequest, stun.Fingerprint)
	if err != nil {
		return netip.AddrPort{}, err
	}
	w := &stunWait{id: m.TransactionID, res: make(chan netip.AddrPort, 1)}
	s.stunWait.Store(w)
	defer s.stunWait.CompareAndSwap(w, nil)
	rto := 100 * time.Millisecond
	for {
		if _, err := s.conn.WriteToAddrPort(m.Raw, to); err != nil {
			return netip.AddrPort{}, fmt.Errorf("stun server %s: %w", server, err)
		}
		t := time.NewTimer(rto)
		select {
		case a := <-w.res:
			t.Stop()
			s.mu.Lock()
			s.public = a
			s.mu.Unlock()
			return a, nil
		case <-ctx.Done():
			t.Stop()
			return netip.AddrPort{}, fmt.Errorf("%w (%s): %v", ErrSTUN, server, ctx.Err())
		case <-s.done:
			t.Stop()
			return netip.AddrPort{}, ErrClosed
		case <-t.C:
			rto = min(2*rto, 1600*time.Millisecond)
		}
	}
}

// PublicAddr is what DiscoverPublic learnt (invalid before or without it).
func (s *Session) PublicAddr() netip.AddrPort {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.public
}

// stunIn takes a STUN answer off the RTP port (RFC 7983 7: first byte
// 0-3); true when the datagram was STUN.
func (s *Session) stunIn(b []byte) bool {
	if len(b) < 20 || b[0] > 3 || !stun.IsMessage(b) {
		return false
	}
	w := s.stunWait.Load()
	if w == nil {
		return true
	}
	m := &stun.Message{Raw: append([]byte(nil), b...)}
	if m.Decode() != nil || m.TransactionID != w.id || m.Type != stun.BindingSuccess {
		return true
	}
	var xa stun.XORMappedAddress
	if xa.GetFrom(m) != nil {
		var ma stun.MappedAddress
		if ma.GetFrom(m) != nil {
			return true
		}
		xa.IP, xa.Port = ma.IP, ma.Port
	}
	ip, ok := netip.AddrFromSlice(xa.IP)
	if !ok {
		return true
	}
	select {
	case w.res <- netip.AddrPortFrom(ip.Unmap(), uint16(xa.Port)):
	default:
	}
	return true
}
