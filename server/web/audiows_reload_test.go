package web

import (
	"testing"

	"github.com/gobwas/ws/wsutil"
)

// TestAudioSocketReload: a reloaded page (the same tab id) opens its new
// socket before the server sees the old one close; the tab keeps the audio
// after the old socket closes, and loses it only when the last one does.
func TestAudioSocketReload(t *testing.T) {
	r, b := audioRig(t)
	const tab = "tab-reload-1"
	conns := func() int { r.srv.mu.Lock(); defer r.srv.mu.Unlock(); return r.srv.tabConns[tab] }
	old, err := r.dialSocket(tab, r.origin, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := wsutil.WriteClientText(old, []byte(`{"state":"ready","focus":true}`)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the page to hold the audio", func() bool { id, _ := b.Holder(); return id == tab })
	// The reloaded page: its socket opens and reports, then the old one closes.
	fresh, err := r.dialSocket(tab, r.origin, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := wsutil.WriteClientText(fresh, []byte(`{"state":"ready","focus":true}`)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "both sockets open", func() bool { return conns() == 2 })
	old.Close()
	waitFor(t, "the old socket's close to be seen", func() bool { return conns() == 1 })
	if id, _ := b.Holder(); id != tab {
		t.Fatalf("the old page's socket closing took the audio from the reloaded page: holder %q", id)
	}
	fresh.Close()
	waitFor(t, "the tab to be gone with its last socket", func() bool { id, _ := b.Holder(); return id == "" })
}
