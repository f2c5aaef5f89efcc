package sipua

import "github.com/emiago/sipgo/sip"

// sipgo refuses to send a UDP message longer than sip.UDPMTUSize-200
// bytes (RFC 3261 18.1.1's 1300 when the path MTU is unknown) and has no
// fallback to TCP. An SDES offer with one a=crypto line per suite (RFC
// 4568 6.2) and five codecs, resent with Proxy-Authorization after a 407,
// is about 1400 bytes: the INVITE then failed with "size of packet larger
// than MTU" and the call never went out. The phone speaks to its PBX over
// the local network or loopback, whose MTU is at least Ethernet's 1500
// (1472 bytes of UDP payload), so that is the limit taken here.
func init() {
	const udpPayload = 1500 - 20 - 8 // Ethernet MTU minus IPv4 and UDP headers
	if sip.UDPMTUSize-200 < udpPayload {
		sip.UDPMTUSize = udpPayload + 200
	}
}
