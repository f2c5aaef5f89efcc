package audio

import (
	"net"
	"net/netip"
	"time"
)

// relatchQuiet is how long the latched source of a clear RTP stream must
// have sent nothing before another port of the SIP peer's IP may take the
// stream without the stream's SSRC (latch).
const relatchQuiet = time.Second

// Where RTP may come from (issue 12, item 5). A packet is taken only from
// the address the far end's SDP names or, for latching (symmetric RTP,
// RFC 4961; RFC 7362 4), from the IP address its SIP messages come from.
// Everything else is a stray: dropped before it is parsed, counted
// (Engine.StrayPackets, StrayPackets of the session), never heard, never
// taken for DTMF, and never able to move where our packets go (RFC 7362 5:
// a stranger who sends first does not get the call's audio).

// sourceFilter is the session's view of the far end, under Session.mu.
type sourceFilter struct {
	sdp    netip.Addr     // the SDP's connection address (Start)
	sdpAP  netip.AddrPort // the SDP's address and port, as Start was given it
	peer   netip.Addr     // the SIP peer's address (SetSignalPeer); invalid: unknown
	latchd netip.AddrPort // where the stream latched to on the peer's IP
	heard  time.Time      // when latchd last sent (clear RTP's re-latch)
	stray  uint64
	warned bool
}

// SetSignalPeer names the IP address the call's SIP messages come from:
// RTP from there is taken even when the SDP names another address (the far
// end is behind a NAT), and ours then go where it comes from.
func (s *Session) SetSignalPeer(ip netip.Addr) {
	s.mu.Lock()
	s.src.peer = ip.Unmap()
	s.mu.Unlock()
}

// StrayPackets is how many packets of this session came from elsewhere.
func (s *Session) StrayPackets() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.src.stray
}

// StrayPackets is how many RTP (and RTCP) packets all sessions dropped as
// strays.
func (e *Engine) StrayPackets() uint64 { return e.stray.Load() }

// admit says whether a packet from "from" may be taken, and whether it
// would latch: the first packet from the SIP peer's IP, when the SDP names
// another, moves our stream there (once; never to another IP). The caller
// latches (latch) only once the packet proved to be the far end's: with
// SRTP, once it authenticates (RFC 7362 5), so a forged packet from the
// peer's IP cannot move the stream to a port where nothing listens and
// leave the far end's own packets strays. Before Start nothing is taken
// and nothing is counted.
func (s *Session) admit(from netip.AddrPort, now time.Time) (ok, latch bool) {
	from = netip.AddrPortFrom(from.Addr().Unmap(), from.Port())
	ip := from.Addr()
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started {
		return false, false
	}
	f := &s.src
	switch {
	case ip == f.sdp:
		if f.latchd.IsValid() && localScope(ip) {
			// The far end sends from behind a NAT (the stream latched
			// to the SIP peer's IP): its SDP's address is a private one
			// of its own network, and a host with that address here is
			// on ours (the same 192.168.1.x): not the far end, whose
			// audio it must not join. (A public SDP address, a media
			// relay beside the PBX, keeps being heard.)
			break
		}
		s.latched = true // packets from the SDP's address: it is right, nothing to move
		return true, false
	case f.peer.IsValid() && ip == f.peer:
		if f.latchd.IsValid() {
			if from == f.latchd {
				f.heard = now
				return true, !s.latched // latched again after a new DTLS association
			}
			if s.srtp.Load() != nil {
				// The far end's NAT gave it another port (its binding
				// expired while it sent nothing, on hold): with SRTP its
				// packets prove who sends them, so one that authenticates
				// moves the stream (RFC 7362 4), a forged one is dropped.
				return true, true
			}
			if d := s.dtls.Load(); !s.latched && d != nil && !d.client {
				// A new DTLS association (dtls.go, StartDTLS) whose client
				// is the far end: its records may come from another port,
				// and only SRTP with its keys latches again. As its
				// client we send where it was: a record from elsewhere,
				// which anyone who forges its IP can send, must not take
				// our handshake away from a server that waits for it.
				return true, true
			}
			if s.dtls.Load() == nil {
				// Clear RTP: the far end's NAT may have given it another
				// port (its binding expired while it sent nothing, on
				// hold). latch takes it when it carries the stream's SSRC,
				// or the latched source has gone quiet (a forged packet
				// that took the stream first); others are strays.
				return true, true
			}
			break // after the latch, that one source only
		}
		return true, !s.latched // when the SDP's address spoke first, we keep sending there
	}
	f.stray++
	s.eng.stray.Add(1)
	if !f.warned {
		f.warned = true
		s.eng.log.Warn("RTP from a stranger dropped", "call", s.cfg.CallID, "source", from.String(),
			"sdp", f.sdp.String(), "sip_peer", f.peer.String())
	}
	return false, false
}

// cgnat is the shared address space of carrier-grade NATs (RFC 6598).
var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// localScope says whether ip is an address of some private network
// (RFC 1918, RFC 4193, RFC 6598, link-local, loopback), which a host of
// our own network may hold as well.
func localScope(ip netip.Addr) bool {
	return ip.IsPrivate() || ip.IsLoopback() || ip.IsLinkLocalUnicast() || cgnat.Contains(ip)
}

// latch moves our stream to from, the SIP peer's address whose packet
// admit let through and that proved to be the far end's, unless the SDP's
// address spoke first. It says whether the packet is taken: on a clear
// stream that latched already, another port takes it only with the
// stream's SSRC (a NAT that gave the far end a new port; a stranger
// forging the peer's IP cannot know it) or after the latched source sent
// nothing for relatchQuiet (a forged first packet took the stream: the
// far end's own get it back). Others are strays. Any payload type
// latches: a far end with voice activity detection that is silent at the
// start sends comfort noise (RFC 3389) only, and must get our audio.
func (s *Session) latch(from netip.AddrPort, ssrc uint32, now time.Time) bool {
	from = netip.AddrPortFrom(from.Addr().Unmap(), from.Port())
	s.mu.Lock()
	defer s.mu.Unlock()
	f := &s.src
	if !f.peer.IsValid() || from.Addr() != f.peer || (s.latched && !f.latchd.IsValid()) {
		return true // not the peer's, or the SDP's address spoke first
	}
	if from == f.latchd {
		s.latched, f.heard = true, now // latched there already (again, after a new DTLS association)
		return true
	}
	if f.latchd.IsValid() && s.srtp.Load() == nil {
		if cur, ok := s.rx.source(); (!ok || ssrc != cur) && now.Sub(f.heard) < relatchQuiet {
			f.stray++
			s.eng.stray.Add(1)
			return false
		}
	}
	s.eng.log.Info("RTP latched to the SIP peer's address", "call", s.cfg.CallID,
		"sdp", f.sdpAP.String(), "source", from.String(), "before", f.latchd.String())
	s.latched, f.latchd, f.heard = true, from, now
	s.remote = net.UDPAddrFromAddrPort(from)
	s.remoteAP = from
	s.remoteCtrl = s.ctrlFor(s.remote)
	return true
}

// admitCtrl says whether a datagram on the RTCP port from "from" may be
// read: the far end's RTCP comes from an IP its RTP may come from (the
// SDP's, or the SIP peer's behind a NAT; its port is its own). Anything
// else is a stray, counted like stray RTP: a stranger's reports must not
// set what ours tell the far end (RFC 3550 6.4.1 LSR, DLSR) nor the
// round-trip time, and its DTLS records must not reach the RTCP port's
// handshake (RFC 5764 4.1), where one forged fatal alert ends it.
func (s *Session) admitCtrl(from netip.AddrPort) bool {
	ip := from.Addr().Unmap()
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started {
		return false
	}
	f := &s.src
	if ip == f.sdp || (f.peer.IsValid() && ip == f.peer) {
		return true
	}
	f.stray++
	s.eng.stray.Add(1)
	return false
}
