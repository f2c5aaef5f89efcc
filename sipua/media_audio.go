package sipua

import (
	"context"
	"fmt"
	"time"

	"github.com/softphone/softphone/audio"
)

// AudioMedia adapts the audio engine to the MediaEngine the phone uses.
func AudioMedia(e *audio.Engine) MediaEngine { return audioMedia{e} }

type audioMedia struct{ e *audio.Engine }

func (a audioMedia) NewSession(callID, seanceID string, onDTMF func(byte)) (MediaSession, error) {
	s, err := a.e.NewSession(audio.SessionConfig{CallID: callID, SeanceID: seanceID, OnDTMF: onDTMF})
	if err != nil {
		return nil, err
	}
	return audioSession{s}, nil
}

func (a audioMedia) Conference(sessions ...MediaSession) error {
	var ss []*audio.Session
	for _, m := range sessions {
		as, ok := m.(audioSession)
		if !ok {
			return fmt.Errorf("conference: session %T is not an audio session", m)
		}
		ss = append(ss, as.Session)
	}
	return a.e.Conference(ss...)
}

func (a audioMedia) Codecs() []audio.Codec { return a.e.Codecs() }

// audioSession is an audio.Session that can also start and stop recording.
type audioSession struct{ *audio.Session }

func (s audioSession) SetRecording(on bool) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if on {
		info, err := s.StartRecording(ctx)
		return info.ID, err
	}
	_, err := s.StopRecording(ctx)
	return "", err
}
