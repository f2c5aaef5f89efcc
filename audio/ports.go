package audio

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"net"
)

// randomPair is a random pair index in [0, n) (0 when n < 1), from the
// system's secure source (a stranger must not predict it, RFC 6056
// 3.3.1); the modulo bias of 64 bits over at most 32768 pairs is nil.
func randomPair(n int) int {
	if n < 1 {
		return 0 // a range without a whole pair (outsideRange)
	}
	var b [8]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand.Read)
	return int(binary.BigEndian.Uint64(b[:]) % uint64(n))
}

// anyPair binds RTP on an even free port the system picks and RTCP on the
// next one (RFC 3550 11); it retries when the odd neighbour is taken.
func anyPair(ip net.IP) (*net.UDPConn, *net.UDPConn, error) {
	for range 50 {
		rtp, err := net.ListenUDP("udp", &net.UDPAddr{IP: ip})
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %v", ErrNoPort, err)
		}
		p := rtp.LocalAddr().(*net.UDPAddr).Port
		if p%2 == 0 && p < 65535 {
			if rtcp, err := net.ListenUDP("udp", &net.UDPAddr{IP: ip, Port: p + 1}); err == nil {
				return rtp, rtcp, nil
			}
		}
		rtp.Close()
	}
	return nil, nil, ErrNoPort
}

// outsideRange is what a call gets when every pair of sip.rtp_port_min to
// sip.rtp_port_max is taken (other phones, a PBX, many calls): a free pair
// elsewhere rather than no audio, said in the log and counted for the page
// (RTPOutsideRange). A firewall opened for the range alone may then block
// that call's audio, which is why the user is told. e.mu is held.
func (e *Engine) outsideRange() (*net.UDPConn, *net.UDPConn, error) {
	rtp, rtcp, err := anyPair(e.ip)
	if err != nil {
		return nil, nil, fmt.Errorf("%w %d-%d, and none elsewhere: %v", ErrNoPort, e.cfg.RTPPortMin, e.cfg.RTPPortMax, err)
	}
	e.outside++
	e.log.Warn("RTP port range full: this call uses a port outside it", "range_min", e.cfg.RTPPortMin,
		"range_max", e.cfg.RTPPortMax, "port", rtp.LocalAddr().(*net.UDPAddr).Port)
	return rtp, rtcp, nil
}

// RTPOutsideRange says how many sessions since start had to take RTP ports
// outside the configured range because it was full, and the range.
func (e *Engine) RTPOutsideRange() (n, lo, hi int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.outside, e.cfg.RTPPortMin, e.cfg.RTPPortMax
}
