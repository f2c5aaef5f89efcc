package audio

import "errors"

// Sentinel errors of package audio; wrapped with %w and context.
var (
	ErrClosed        = errors.New("audio: session closed")
	ErrNotStarted    = errors.New("audio: session not started")
	ErrNoPort        = errors.New("audio: no free RTP port in range")
	ErrCodec         = errors.New("audio: unsupported codec")
	ErrBadDigit      = errors.New("audio: not a DTMF digit")
	ErrNoDTMF        = errors.New("audio: the far end did not negotiate telephone-event")
	ErrNotSending    = errors.New("audio: the media direction does not allow sending")
	ErrBadOffer      = errors.New("audio: unusable WebRTC offer")
	ErrNoSink        = errors.New("audio: no recording sink configured")
	ErrRecording     = errors.New("audio: recording")
	ErrNotRecording  = errors.New("audio: not recording")
	ErrTranscribe    = errors.New("audio: transcription failed")
	ErrNotConference = errors.New("audio: a conference needs at least two started sessions")
	ErrNoRecogniser  = errors.New("audio: no recogniser configured")
	ErrSRTPKeys      = errors.New("audio: unusable SRTP keys")
)
