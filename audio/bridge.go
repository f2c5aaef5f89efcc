package audio

import (
	"context"
	"fmt"
	"sync"

	"github.com/pion/rtp"
)

// Bridge is the WebRTC side of the engine: the browser tab that is the
// phone's speaker and microphone. The tab focused last holds the audio.
type Bridge struct {
	eng *Engine
	mu  sync.Mutex
}

func newBridge(e *Engine) (*Bridge, error) { return &Bridge{eng: e}, nil }

// Offer answers a tab's WebRTC offer.
func (b *Bridge) Offer(ctx context.Context, tabID string, sdpOffer string) (string, error) {
	return "", fmt.Errorf("%w: not yet", ErrBadOffer)
}

// Focus gives the audio to tabID.
func (b *Bridge) Focus(tabID string) {}

// Attached reports whether a tab holds the audio.
func (b *Bridge) Attached() bool { return false }

func (b *Bridge) down(s *Session, p *rtp.Packet, c Codec) bool { return false }
func (b *Bridge) pushPCM(s *Session, pcm []int16)              {}
func (b *Bridge) forget(s *Session)                            {}
func (b *Bridge) close() error                                 { return nil }
