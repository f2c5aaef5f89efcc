package audio

import "time"

// monoBase is the origin of the sessions' heard marks: durations from it
// are the monotonic clock's, so a step of the wall clock changes none.
var monoBase = time.Now()

// hear notes that the far end was heard at now: an authenticated RTP packet
// of its stream (comfort noise and telephone events too) or an RTCP
// compound packet. One atomic store per packet.
func (s *Session) hear(now time.Time) { s.heard.Store(int64(now.Sub(monoBase))) }

// Silence is how long the far end has not been heard (no RTP, no RTCP),
// counted from the last Start when it has not been since. The phone ends
// an answered call that stays silent too long (sipua's media timeout): a
// PBX or far end that vanished without a BYE left the call up for ever.
func (s *Session) Silence() time.Duration {
	return time.Since(monoBase) - time.Duration(s.heard.Load())
}
