package audio

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/softphone/softphone/internal/testpeer"
)

// TestDiscoverPublicWithCoturn: a session asks coturn (STUN only) from its
// RTP port; on loopback the mapped address is the port itself. A server
// that does not answer gives ErrSTUN when the context ends.
func TestDiscoverPublicWithCoturn(t *testing.T) {
	port := testpeer.Coturn(t, nil, "", 0)
	e := newTestEngine(t)
	s, err := e.NewSession(SessionConfig{CallID: "stun"})
	mustOK(t, err)
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	got, err := s.DiscoverPublic(ctx, "127.0.0.1:"+strconv.Itoa(port))
	mustOK(t, err)
	if got.String() != s.LocalAddr().String() || s.PublicAddr() != got {
		t.Fatalf("mapped %v, local %v", got, s.LocalAddr())
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel2()
	if _, err := s.DiscoverPublic(ctx2, "127.0.0.1:"+strconv.Itoa(testpeer.FreeUDPPort(t))); !errors.Is(err, ErrSTUN) {
		t.Fatalf("silent server: %v", err)
	}
}
