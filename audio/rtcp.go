package audio

import (
	"time"

	"github.com/pion/rtcp"
)

// defaultRTCPInterval is the report interval (RFC 3550 6.2: 5 s minimum).
const defaultRTCPInterval = 5 * time.Second

// ntpTime is the 64-bit NTP timestamp of t (RFC 3550 4).
func ntpTime(t time.Time) uint64 {
	const ntpEpochOffset = 2208988800
	secs := uint64(t.Unix()) + ntpEpochOffset
	frac := uint64(t.Nanosecond()) * (1 << 32) / 1e9
	return secs<<32 | frac
}

// rtcpLoop sends sender reports and reads the far end's reports for the
// round-trip time (RFC 3550 6.4.1: RTT = A - LSR - DLSR).
func (s *Session) rtcpLoop() {
	defer s.wg.Done()
	go s.rtcpRead()
	every := s.eng.config().RTCPInterval
	if every <= 0 {
		every = defaultRTCPInterval
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.done:
			return
		case now := <-t.C:
			s.sendReport(now)
		}
	}
}

func (s *Session) sendReport(now time.Time) {
	s.mu.Lock()
	if !s.started || s.closed || s.remoteCtrl == nil || unspecified(s.remoteCtrl.AddrPort().Addr()) {
		s.mu.Unlock()
		return // (0.0.0.0 is this machine to the kernel: errUnspecified)
	}
	sr := &rtcp.SenderReport{SSRC: s.ssrc, NTPTime: ntpTime(now), RTPTime: s.out.ts,
		PacketCount: uint32(s.sent), OctetCount: uint32(s.sentOctets)}
	dst := s.remoteCtrl
	s.mu.Unlock()
	if rb, ok := s.rx.reportBlock(now); ok {
		sr.Reports = []rtcp.ReceptionReport{rb}
	}
	b, err := rtcp.Marshal([]rtcp.Packet{sr, &rtcp.SourceDescription{Chunks: []rtcp.SourceDescriptionChunk{{
		Source: s.ssrc, Items: []rtcp.SourceDescriptionItem{{Type: rtcp.SDESCNAME, Text: "softphone"}}}}}})
	if err == nil {
		if b, ok := s.srtcpOut(b); ok {
			_, _ = s.ctrl.WriteToUDP(b, dst)
		}
	}
}

func (s *Session) rtcpRead() {
	buf := make([]byte, 1500)
	for {
		n, from, err := s.ctrl.ReadFromUDPAddrPort(buf)
		if err != nil {
			return
		}
		if !s.admitCtrl(from) {
			continue // before Start, or a stray (session_source.go)
		}
		plain, ok := s.srtcpIn(buf[:n])
		if !ok {
			continue
		}
		pkts, err := rtcp.Unmarshal(plain)
		if err != nil {
			continue
		}
		now := time.Now()
		s.hear(now)
		for _, p := range pkts {
			switch r := p.(type) {
			case *rtcp.SenderReport:
				s.rx.gotSR(r.SSRC, uint32(r.NTPTime>>16), now)
				s.rttFrom(r.Reports, now)
			case *rtcp.ReceiverReport:
				s.rttFrom(r.Reports, now)
			}
		}
	}
}

func (s *Session) rttFrom(reports []rtcp.ReceptionReport, now time.Time) {
	for _, r := range reports {
		if r.SSRC != s.ssrc || r.LastSenderReport == 0 {
			continue
		}
		a := uint32(ntpTime(now) >> 16)
		rtt := a - r.LastSenderReport - r.Delay // units of 1/65536 s
		ms := float64(rtt) * 1000 / 65536
		if ms >= 0 && ms < 10000 {
			s.mu.Lock()
			s.rtt = ms
			s.mu.Unlock()
		}
	}
}

// gotSR notes a sender report for the LSR and DLSR of our report block,
// which are those of the last SR from the source the block is about (RFC
// 3550 6.4.1): another SSRC's report would give the far end a false
// round-trip time.
func (r *rxStats) gotSR(ssrc, mid uint32, now time.Time) {
	r.mu.Lock()
	if r.started && ssrc == r.ssrc {
		r.lastSR, r.lastSRAt = mid, now
	}
	r.mu.Unlock()
}

// reportBlock describes the far end's stream for our report (RFC 3550 6.4.1).
func (r *rxStats) reportBlock(now time.Time) (rtcp.ReceptionReport, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.started {
		return rtcp.ReceptionReport{}, false
	}
	exp := r.expected()
	lost := int64(exp) - int64(r.received)
	if lost < 0 {
		lost = 0
	}
	expInt, recInt := exp-r.expPrior, r.received-r.recPrior
	r.expPrior, r.recPrior = exp, r.received
	var frac uint8
	if expInt > 0 && expInt > recInt {
		frac = uint8((expInt - recInt) * 256 / expInt)
	}
	rb := rtcp.ReceptionReport{SSRC: r.ssrc, FractionLost: frac, TotalLost: uint32(min(lost, 0x7fffff)),
		LastSequenceNumber: r.cycles + uint32(r.maxSeq), Jitter: uint32(r.jitter), LastSenderReport: r.lastSR}
	if !r.lastSRAt.IsZero() {
		rb.Delay = uint32(now.Sub(r.lastSRAt).Seconds() * 65536)
	}
	return rb, true
}
