package sipua

import (
	"context"
	"net/netip"
	"time"
)

// publicMedia is a media session that can ask a STUN server for its RTP
// port's address outside the NAT (audio.Session.DiscoverPublic).
type publicMedia interface {
	DiscoverPublic(ctx context.Context, server string) (netip.AddrPort, error)
	PublicAddr() netip.AddrPort
}

// learnPublic asks the account's STUN server (RFC 8489) from the call's
// RTP port which address and port the far side will see, before the first
// SDP is written: behind a NAT that is where the PBX must send our media,
// so it goes into c= and m= (localSDP). The mapping stays while RTP flows
// (and is the same one symmetric RTP answers to). Without an answer the
// call goes on with the local address (rport still fixes SIP).
func (c *call) learnPublic() {
	pm, ok := c.media.(publicMedia)
	if c.line.acc.StunServer == "" || !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, err := pm.DiscoverPublic(ctx, c.line.acc.StunServer); err != nil {
		c.p.log.Warn("STUN: public RTP address not learnt", "call", c.id, "error", err)
	}
}

// publicRTP is what learnPublic found (invalid without it).
func (c *call) publicRTP() (netip.AddrPort, bool) {
	pm, ok := c.media.(publicMedia)
	if !ok {
		return netip.AddrPort{}, false
	}
	a := pm.PublicAddr()
	return a, a.IsValid() && a.Port() != 0
}
