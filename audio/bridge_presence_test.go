package audio

import (
	"context"
	"net"
	"net/netip"
	"testing"
	"time"
)

// TestPresenceDecidesTheHolder: a ready page holds the audio without any
// media (between calls); the page focused last among the ready ones holds
// it; a page whose microphone is blocked never does; a page gone is
// forgotten; media flowing makes the holder live.
func TestPresenceDecidesTheHolder(t *testing.T) {
	b := newTestEngine(t).Bridge()
	if id, _ := b.Holder(); id != "" || b.Ready() {
		t.Fatalf("no page open: holder %q, ready %v", id, b.Ready())
	}
	b.Present("tab-one-1", TabReady)
	if id, live := b.Holder(); id != "tab-one-1" || live {
		t.Fatalf("holder %q live %v, want tab-one-1 not live", id, live)
	}
	b.Present("tab-two-2", TabMicBlocked)
	b.Focus("tab-two-2")
	if id, _ := b.Holder(); id != "tab-one-1" {
		t.Fatalf("a blocked page took the audio: holder %q", id)
	}
	b.Present("tab-two-2", TabReady) // allowed now
	if id, _ := b.Holder(); id != "tab-two-2" {
		t.Fatalf("holder %q, want the page focused last", id)
	}
	b.Focus("tab-one-1")
	if id, _ := b.Holder(); id != "tab-one-1" {
		t.Fatalf("holder %q after focus, want tab-one-1", id)
	}
	b.Gone("tab-one-1")
	if id, _ := b.Holder(); id != "tab-two-2" {
		t.Fatalf("holder %q after the page went, want tab-two-2", id)
	}
	link := b.AttachPCM("tab-two-2")
	if b.Attached() {
		t.Fatal("attached before any media flowed")
	}
	link.Mic(make([]int16, frameLen))
	if id, live := b.Holder(); id != "tab-two-2" || !live || !b.Attached() {
		t.Fatalf("after a microphone frame: holder %q live %v", id, live)
	}
	link.Close()
	if id, live := b.Holder(); id != "tab-two-2" || live {
		t.Fatalf("after the call: holder %q live %v, want the page ready, not live", id, live)
	}
	b.Gone("tab-two-2")
	if b.Ready() {
		t.Fatal("ready with every page gone")
	}
}

// TestWaitReady returns when a page turns ready, and false when none does.
func TestWaitReady(t *testing.T) {
	b := newTestEngine(t).Bridge()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if b.WaitReady(ctx) {
		t.Fatal("ready with no page")
	}
	go b.Present("tab-late-1", TabReady)
	ctx2, cancel2 := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel2()
	if !b.WaitReady(ctx2) {
		t.Fatal("WaitReady missed the page")
	}
}

// TestPCMLinkCarriesToneBothWays: the fallback path. The page's 440 Hz
// (16 kHz frames) reaches the far end; the far end's 1000 Hz comes out of
// the link as 16 kHz frames.
func TestPCMLinkCarriesToneBothWays(t *testing.T) {
	e := newTestEngine(t)
	_, _, farHeard := startCall(t, e, CodecPCMU, 1000, nil)
	b := e.Bridge()
	b.Present("tab-pcm-1", TabReady)
	link := b.AttachPCM("tab-pcm-1")
	defer link.Close()
	done := make(chan struct{})
	defer close(done)
	go func() { // the page's microphone, a frame every 20 ms
		var ph float64
		tk := time.NewTicker(20 * time.Millisecond)
		defer tk.Stop()
		for {
			select {
			case <-done:
				return
			case <-tk.C:
				link.Mic(tone(440, pcmRate, frameLen, &ph))
			}
		}
	}()
	var got []int16
	deadline := time.After(5 * time.Second)
	for len(got) < 20*frameLen {
		select {
		case f := <-link.Out():
			got = append(got, f...)
		case <-deadline:
			t.Fatalf("only %d samples came to the page", len(got))
		}
	}
	assertTone(t, "the page hears", got[10*frameLen:], pcmRate, 1000)
	farHeard.take(t, 10*frameLen) // the first packets may predate the link
	assertTone(t, "the far end hears", farHeard.take(t, 10*frameLen), pcmRate, 440)
}

// TestPCMMicNeverReachesAHeldCall: held (sendonly) calls get silence from
// the page, the active one its microphone.
func TestPCMMicNeverReachesAHeldCall(t *testing.T) {
	e := newTestEngine(t)
	held, _, heldHeard := startCall(t, e, CodecPCMU, 1000, nil)
	_, _, activeHeard := startCall(t, e, CodecPCMU, 700, nil)
	held.SetDirection(SendOnly)
	b := e.Bridge()
	b.Present("tab-held-1", TabReady)
	link := b.AttachPCM("tab-held-1")
	defer link.Close()
	done := make(chan struct{})
	defer close(done)
	go func() {
		var ph float64
		tk := time.NewTicker(20 * time.Millisecond)
		defer tk.Stop()
		for {
			select {
			case <-done:
				return
			case <-tk.C:
				link.Mic(tone(440, pcmRate, frameLen, &ph))
			}
		}
	}()
	activeHeard.take(t, 10*frameLen)
	assertTone(t, "the active call hears the page", activeHeard.take(t, 10*frameLen), pcmRate, 440)
	heldHeard.take(t, 10*frameLen)
	assertQuiet(t, "the held call", heldHeard.take(t, 10*frameLen))
}

// TestOwnAddrs: the bridge reads packets only from this machine's own
// addresses (loopback and its interfaces), never from another machine.
func TestOwnAddrs(t *testing.T) {
	var o ownAddrs
	for _, a := range []string{"127.0.0.1", "127.3.4.5", "::1", "::ffff:127.0.0.1"} {
		if !o.has(netip.MustParseAddr(a)) {
			t.Errorf("%s refused", a)
		}
	}
	for _, a := range []string{"192.0.2.7", "198.51.100.1", "2001:db8::1"} {
		if o.has(netip.MustParseAddr(a)) {
			t.Errorf("%s (not ours) accepted", a)
		}
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	var o2 ownAddrs
	for _, x := range addrs {
		p, err := netip.ParsePrefix(x.String())
		if err == nil && !o2.has(p.Addr()) {
			t.Errorf("own address %s refused", p.Addr())
		}
	}
}
