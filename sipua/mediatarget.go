package sipua

import (
	"errors"
	"net"
	"net/netip"

	"github.com/emiago/sipgo/sip"
)

// errLocalMedia is an SDP from a peer elsewhere that points our RTP and
// RTCP at this machine (loopback) or at a multicast group: we would send
// media, at the peer's choice of port, to local services or to a whole
// network. An offer gets 488 (RFC 3261 21.4.26), an answer ends the call.
var errLocalMedia = errors.New("sdp: media address on this machine or multicast, from a peer elsewhere")

// chooseMedia checks where the far end's SDP sends our media, then picks
// the codec (choose). A peer on this machine (tests, a local PBX) may
// name loopback; 0.0.0.0 is hold (RFC 3264 8.4) and stays allowed.
func (c *call) chooseMedia(r remoteSDP, weAnswer bool) (negotiated, error) {
	if r.addr != nil && badMediaTarget(r.addr.IP) && !localPeer(c.sigPeer) {
		c.p.log.Info("SDP refused: media address on this machine or multicast", "call", c.id, "addr", r.addr.String(), "peer", c.sigPeer)
		return negotiated{}, errLocalMedia
	}
	return choose(r, c.p.media.Codecs(), weAnswer)
}

// badMediaTarget: loopback (127.0.0.0/8, ::1), an address of this
// machine's own interfaces (its LAN address reaches the same local
// services as loopback, those listening on all addresses), or multicast.
func badMediaTarget(ip net.IP) bool {
	if ip.IsMulticast() {
		return true
	}
	a, ok := netip.AddrFromSlice(ip)
	return ok && localPeer(a.Unmap())
}

// localPeer says whether the SIP peer is on this machine: loopback or one
// of its own addresses. An unknown peer is not.
func localPeer(ip netip.Addr) bool {
	if !ip.IsValid() {
		return false
	}
	if ip.IsLoopback() {
		return true
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			if own, ok := netip.AddrFromSlice(n.IP); ok && own.Unmap() == ip.Unmap() {
				return true
			}
		}
	}
	return false
}

// refuseLocalMedia answers 488 to a new INVITE whose offer cannot be
// used, before it rings (as refuseClearOffer), and ends the call as
// failed: chooseMedia refuses its media address or finds no codec, or it
// cannot be read at all (a host name in c=, no audio m= line). Such a
// call rang and failed only when the person answered it (prepareAnswer's
// 488). It reports whether it did.
func (c *call) refuseLocalMedia(req *sip.Request) bool {
	body := req.Body()
	if len(body) == 0 {
		return false // we offer in the 200; the ACK's answer is checked
	}
	r, err := parseSDP(body)
	if err == nil {
		_, err = c.chooseMedia(r, true)
	}
	if err == nil {
		return false
	}
	if !errors.Is(err, errLocalMedia) { // chooseMedia said so already
		c.p.log.Info("incoming call refused: its SDP offer cannot be used", "call", c.id, "error", err)
	}
	c.begin(StateRingingIn)
	sess := c.in
	go func() {
		_ = sess.Respond(488, "Not Acceptable Here", nil)
		c.closeFinal()
	}()
	c.end(ReasonFailed, OutcomeFailed)
	return true
}
