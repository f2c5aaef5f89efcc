package sipua

import (
	"net/netip"

	"github.com/emiago/sipgo/sip"
)

// RTP is taken only from the address in the far end's SDP or, for latching,
// from the IP its SIP messages come from (issue 12, item 5; audio's
// session_source.go does the filtering). The call tells its media session
// that IP: the source of the INVITE we received, or of the 18x/2xx that
// carried the SDP of a call we placed.

// signalPeerSetter is the part of a media session that takes the SIP peer's
// address (audio.Session); silent test sessions do without.
type signalPeerSetter interface {
	SetSignalPeer(ip netip.Addr)
}

// noteSignalPeer records where a message carrying the far end's SDP came from.
func (c *call) noteSignalPeer(m sip.Message) {
	if ip := sourceAddr(m); ip.IsValid() {
		c.sigPeer = ip
	}
}

// tellSignalPeer hands the SIP peer's IP to the media session before Start.
func (c *call) tellSignalPeer() {
	if ps, ok := c.media.(signalPeerSetter); ok && c.sigPeer.IsValid() {
		ps.SetSignalPeer(c.sigPeer)
	}
}
