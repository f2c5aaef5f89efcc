package web

import (
	"net"

	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/views"
)

// RTPPorts is what the pages use of *audio.Engine: how many sessions took
// RTP ports outside the configured range because it was full.
type RTPPorts interface {
	RTPOutsideRange() (n, lo, hi int)
}

// listenStates is what *sipua.Phone says of its SIP listeners; a Phone
// without it (a test double) has no notices.
type listenStates interface {
	ListenStates() []sipua.ListenState
}

// notices are the lines every page shows about living beside other
// programs (issue 17): a SIP port taken and moved, a SIP listener that could
// not open, RTP ports taken outside the full range. The log says the same.
func (s *Server) notices(l views.L) []string {
	var out []string
	if ls, ok := s.cfg.Phone.(listenStates); ok {
		for _, st := range ls.ListenStates() {
			tr := map[string]string{"udp": "UDP", "tcp": "TCP", "tls": "TLS"}[st.Transport]
			switch {
			case st.Moved:
				_, want, _ := net.SplitHostPort(st.Want)
				_, got, _ := net.SplitHostPort(st.Addr)
				out = append(out, l.F("listen.moved", want, tr, got))
			case !st.Open():
				out = append(out, l.F("listen.failed", tr, st.Want, st.Err, tr))
			}
		}
	}
	if s.cfg.Ports != nil {
		if n, lo, hi := s.cfg.Ports.RTPOutsideRange(); n > 0 {
			out = append(out, l.F("rtp.outside", lo, hi, n))
		}
	}
	return out
}
