package sipua

import "time"

// ReasonMediaTimeout ends an answered call whose far end was not heard
// for mediaTimeout: no RTP (comfort noise and tones count) and no RTCP,
// while neither side holds the call. A PBX or far end that vanished
// without a BYE (crashed, its network gone) left the call up for ever: the
// person heard silence and was told nothing, the history entry stayed
// open and integrators never got call-ended. Linphone's nortp_timeout does
// the same, at 30 s by default.
const ReasonMediaTimeout = "media-timeout"

// mediaTimeoutNow is how long an answered call's far end may be silent:
// Config.MediaTimeout when set (< 0: never), else sip.media_timeout_s
// (0: never; the settings file's default is 30 s).
func (p *Phone) mediaTimeoutNow() time.Duration {
	if p.mediaTimeout != 0 {
		return max(p.mediaTimeout, 0)
	}
	return time.Duration(p.settingsNow().SIP.MediaTimeoutS) * time.Second
}

// silencer is the media session's Silence (audio.Session).
type silencer interface{ Silence() time.Duration }

// watchMedia is told each time the call becomes connected or its hold
// changes: the silence counts from then at the earliest (while held the
// far end rightly sends nothing), and the check starts with the answer.
// The time is taken at the answer: a change of sip.media_timeout_s
// applies to the calls answered after it.
func (c *call) watchMedia() {
	c.mediaSince = time.Now()
	if c.mediaTick != nil {
		return
	}
	if c.mediaFor = c.p.mediaTimeoutNow(); c.mediaFor > 0 {
		c.mediaTick = time.NewTicker(max(c.mediaFor/4, 100*time.Millisecond))
	}
}

// mediaTicks is the check's channel (nil before the answer: never ready).
func (c *call) mediaTicks() <-chan time.Time {
	if c.mediaTick == nil {
		return nil
	}
	return c.mediaTick.C
}

// checkMedia ends the call when its far end has been silent too long.
func (c *call) checkMedia() {
	if c.localHold || c.remoteHold || (c.c.State != StateActive && c.c.State != StateConference) {
		return
	}
	s, ok := c.media.(silencer)
	if !ok {
		return
	}
	quiet := min(s.Silence(), time.Since(c.mediaSince))
	if quiet < c.mediaFor {
		return
	}
	c.p.log.Warn("the far end fell silent: call ended", "call", c.id, "silent", quiet.Round(time.Second).String())
	c.bye()
	c.end(ReasonMediaTimeout, OutcomeAnswered)
}

// stopMediaWatch ends the check (the call ended).
func (c *call) stopMediaWatch() {
	if c.mediaTick != nil {
		c.mediaTick.Stop()
	}
}
