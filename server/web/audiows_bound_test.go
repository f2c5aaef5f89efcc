package web

import (
	"errors"
	"io"
	"testing"
	"time"

	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsutil"
	"github.com/softphone/softphone/server/httplimit"
)

// TestAudioSocketsBounded: the audio sockets, hijacked out of fasthttp's
// connection count, have a count of their own: one more than wsMaxSockets
// is refused before the upgrade, and a socket closed makes room again.
func TestAudioSocketsBounded(t *testing.T) {
	r, _ := audioRig(t)
	conns := make([]io.Closer, 0, wsMaxSockets)
	for i := range wsMaxSockets {
		c, err := r.dialSocket("tab-many-"+itoa(i), r.origin, true)
		if err != nil {
			t.Fatalf("socket %d: %v", i, err)
		}
		conns = append(conns, c)
	}
	// Each socket counts once the phone runs it (fasthttp hands the
	// connection over after the 101 is sent).
	waitFor(t, "the sockets to count", func() bool { return r.srv.audioSocketsOpen() == wsMaxSockets })
	_, err := r.dialSocket("tab-one-more", r.origin, true)
	var st ws.StatusError
	if !errors.As(err, &st) || int(st) != 503 {
		t.Fatalf("socket %d: got %v, want 503", wsMaxSockets+1, err)
	}
	conns[0].Close()
	waitFor(t, "the closed socket's room", func() bool { return r.srv.audioSocketsOpen() < wsMaxSockets })
	if _, err := r.dialSocket("tab-one-more", r.origin, true); err != nil {
		t.Fatalf("after a close: %v", err)
	}
}

// TestAudioSocketIdle: an audio socket that brings nothing (a peer gone
// without a FIN, a program that holds it) is closed after Limits.Idle; a
// page that answers the phone's pings (as browsers do by themselves) stays
// open over many idle periods with nothing else to send.
func TestAudioSocketIdle(t *testing.T) {
	r, b := audioRig(t)
	r.srv.cfg.Limits = httplimit.Limits{Idle: 300 * time.Millisecond}

	// A live page: answers pings, sends nothing else.
	live, err := r.dialSocket("tab-live", r.origin, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := wsutil.WriteClientText(live, []byte(`{"state":"ready"}`)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the live page to hold the audio", func() bool { id, _ := b.Holder(); return id == "tab-live" })
	pings := make(chan struct{}, 64)
	liveErr := make(chan error, 1)
	go func() { // a browser: each ping answered with a pong (RFC 6455 5.5.3)
		for {
			f, err := ws.ReadFrame(live)
			if err != nil {
				liveErr <- err
				return
			}
			if f.Header.OpCode == ws.OpPing {
				if err := ws.WriteFrame(live, ws.MaskFrame(ws.NewPongFrame(f.Payload))); err != nil {
					liveErr <- err
					return
				}
				pings <- struct{}{}
			}
		}
	}()

	// A silent one: never reads, never writes.
	silent, err := r.dialSocket("tab-silent", r.origin, true)
	if err != nil {
		t.Fatal(err)
	}
	closed := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, silent) // ends when the phone closes it
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("a socket that brings nothing is still open after 5 s (idle 300 ms)")
	}
	// Ten pings answered: over three idle periods with no message but pongs.
	for i := range 10 {
		select {
		case <-pings:
		case err := <-liveErr:
			t.Fatalf("the live page's socket ended after %d pings: %v", i, err)
		case <-time.After(5 * time.Second):
			t.Fatalf("no ping after %d", i)
		}
	}
	if id, _ := b.Holder(); id != "tab-live" {
		t.Fatalf("the live page lost the audio (holder %q)", id)
	}
}
