package sipua

import (
	"context"
	"net"

	"github.com/emiago/sipgo/sip"
)

// udpMaxRequest is RFC 3261 18.1.1's limit when the path MTU is unknown: a
// request longer than 1300 bytes (or within 200 bytes of the path MTU)
// MUST go over a congestion-controlled transport such as TCP. sipgo
// refuses to send such a message over UDP (its UDPMTUSize-200) and does
// not switch by itself; an SDES offer with one a=crypto line per suite
// (RFC 4568 6.2) and five codecs, resent with Proxy-Authorization after a
// 407, is about 1400 bytes.
const udpMaxRequest = 1300

// tcpFallback is the transaction requester of a UDP account's sipgo
// client: it sends requests as sipgo would, but one too large for UDP
// goes over TCP to the same server (RFC 3261 18.1.1), with the Via saying
// TCP and our TCP listener's port. Without a TCP listener the request
// stays on UDP (and sipgo refuses it, as before).
//
// It is every account's requester (toTCP only for a UDP account's), so
// that an INVITE's transaction reaches its call's fork handling (fork.go).
type tcpFallback struct {
	st    *stack
	toTCP bool
}

func (f tcpFallback) Request(ctx context.Context, req *sip.Request) (sip.ClientTransaction, error) {
	f.st.fromListener(req)
	if req.IsAck() {
		// Without a transaction (the ACK of a 2xx): straight to the transport.
		return nil, f.st.ua.TransportLayer().WriteMsg(req)
	}
	if f.toTCP && f.st.tcpPort != 0 && req.Transport() == "UDP" && len(req.String()) > udpMaxRequest {
		req.SetTransport("TCP")
		req.Laddr = sip.Addr{} // from any port: the UDP listener's is not a TCP one
		if via := req.Via(); via != nil {
			via.Transport = "TCP"
			via.Port = f.st.tcpPort
		}
	}
	tx, err := f.st.ua.TransactionLayer().Request(ctx, req)
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	if req.IsInvite() {
		sentInvite(req, tx)
	}
	return tx, nil
}

// fromListener has a UDP request that names no local address leave from
// the SIP listener, the port our Via and Contact name. sipgo's dialog
// sessions build in-dialog requests without the client's local address
// (its WithClientConnectionAddr is applied only when a request is built
// in full), so a request to an address that never sent us a packet (a
// Contact other than the PBX's proxy) left from a new socket on 0.0.0.0
// and an ephemeral port: a port-restricted NAT drops the answers to it,
// and with sip.listen on one interface it could leave from another.
func (st *stack) fromListener(req *sip.Request) {
	if st.udpConn == nil || req.Transport() != "UDP" || req.Laddr.IP != nil {
		return
	}
	if a, ok := st.udpConn.LocalAddr().(*net.UDPAddr); ok {
		req.Laddr = sip.Addr{IP: a.IP, Port: a.Port}
	}
}
