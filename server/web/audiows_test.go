package web

import (
	"context"
	"encoding/binary"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsutil"
	"github.com/softphone/softphone/audio"
)

// audioRig is a rig whose bridge is a real audio engine's.
func audioRig(t *testing.T) (*rig, *audio.Bridge) {
	t.Helper()
	e, err := audio.NewEngine(audio.EngineConfig{Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	r := newRig(t, func(c *Config) { c.Bridge = e.Bridge() })
	r.login()
	return r, e.Bridge()
}

func (r *rig) dialSocket(tab, origin string, withCookie bool) (net.Conn, error) {
	h := http.Header{"Origin": {origin}}
	if withCookie {
		h.Set("Cookie", r.cookie.Name+"="+r.cookie.Value)
	}
	d := ws.Dialer{Header: ws.HandshakeHeaderHTTP(h), Timeout: 5 * time.Second}
	conn, _, _, err := d.Dial(context.Background(), strings.Replace(r.origin, "http", "ws", 1)+"/audio/ws?tab="+tab)
	if err != nil {
		return nil, err
	}
	r.t.Cleanup(func() { conn.Close() })
	return conn, nil
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// TestAudioSocketStates: the page's socket reports its state to the bridge;
// the page holds the audio while its socket is open; the header shows it.
func TestAudioSocketStates(t *testing.T) {
	r, b := audioRig(t)
	h := http.Header{"Origin": {r.origin}, "Cookie": {r.cookie.Name + "=" + r.cookie.Value}}
	d := ws.Dialer{Header: ws.HandshakeHeaderHTTP(h), Timeout: 5 * time.Second}
	conn, _, _, err := d.Dial(context.Background(), strings.Replace(r.origin, "http", "ws", 1)+"/audio/ws?tab=tab-socket-1")
	if err != nil {
		t.Fatal(err)
	}
	changed := b.Changes()
	if err := wsutil.WriteClientText(conn, []byte(`{"state":"mic-blocked"}`)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed: // the bridge took the state
	case <-time.After(5 * time.Second):
		t.Fatal("the state never reached the bridge")
	}
	if b.Ready() {
		t.Fatal("a page with a blocked microphone holds the audio")
	}
	if err := wsutil.WriteClientText(conn, []byte(`{"state":"ready"}`)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the page to hold the audio", func() bool { id, _ := b.Holder(); return id == "tab-socket-1" })
	_, body := r.do("GET", "/", nil, nil)
	if !strings.Contains(body, `data-holder="tab-socket-1"`) || !strings.Contains(body, "Audio is in another tab") {
		t.Fatalf("first paint does not name the holder:\n%s", grepLine(body, "audio-"))
	}
	// The fallback: microphone frames in, far-end frames out.
	if err := wsutil.WriteClientText(conn, []byte(`{"audio":"pcm"}`)); err != nil {
		t.Fatal(err)
	}
	frame := make([]byte, 640)
	binary.LittleEndian.PutUint16(frame, 1000)
	if err := wsutil.WriteClientBinary(conn, frame); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "media to flow", b.Attached)
	conn.Close()
	waitFor(t, "the page to be forgotten", func() bool { return !b.Ready() })
	_, body = r.do("GET", "/", nil, nil)
	if !strings.Contains(body, "No tab is open for the audio: open the phone page") {
		t.Fatalf("first paint with no page:\n%s", grepLine(body, "audio-text"))
	}
}

// TestAudioSocketRefusals: another origin, no session, no upgrade, a
// bad tab id, an oversized frame.
func TestAudioSocketRefusals(t *testing.T) {
	r, b := audioRig(t)
	if _, err := r.dialSocket("tab-socket-2", "http://evil.example", true); err == nil {
		t.Fatal("another origin got a socket")
	}
	if _, err := r.dialSocket("tab-socket-2", r.origin, false); err == nil {
		t.Fatal("no session got a socket")
	}
	if _, err := r.dialSocket("x", r.origin, true); err == nil {
		t.Fatal("a bad tab id got a socket")
	}
	res, _ := r.do("GET", "/audio/ws?tab=tab-socket-2", nil, nil)
	if res.StatusCode != http.StatusBadRequest {
		t.Fatalf("plain GET: %d, want 400", res.StatusCode)
	}
	h := http.Header{"Origin": {r.origin}, "Cookie": {r.cookie.Name + "=" + r.cookie.Value}}
	d := ws.Dialer{Header: ws.HandshakeHeaderHTTP(h), Timeout: 5 * time.Second}
	conn, _, _, err := d.Dial(context.Background(), strings.Replace(r.origin, "http", "ws", 1)+"/audio/ws?tab=tab-socket-3")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := wsutil.WriteClientText(conn, []byte(`{"state":"ready"}`)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the page to be ready", b.Ready)
	if err := wsutil.WriteClientBinary(conn, make([]byte, wsMaxMessage+1)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the oversized frame to end the socket", func() bool { return !b.Ready() })
}

func grepLine(body, s string) string {
	var out []string
	for _, l := range strings.Split(body, "\n") {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestAudioSocketFocus: a page opened later does not take the audio from
// the one holding it, unless it is in front (focus).
func TestAudioSocketFocus(t *testing.T) {
	r, b := audioRig(t)
	a, err := r.dialSocket("tab-focus-a", r.origin, true)
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(wsutil.WriteClientText(a, []byte(`{"state":"ready"}`)))
	waitFor(t, "page a to hold the audio", func() bool { id, _ := b.Holder(); return id == "tab-focus-a" })
	c, err := r.dialSocket("tab-focus-b", r.origin, true)
	must(err)
	changed := b.Changes()
	must(wsutil.WriteClientText(c, []byte(`{"state":"ready"}`)))
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("page b's state never reached the bridge")
	}
	if id, _ := b.Holder(); id != "tab-focus-a" {
		t.Fatalf("a page opened behind took the audio: %q", id)
	}
	must(wsutil.WriteClientText(c, []byte(`{"state":"ready","focus":true}`)))
	waitFor(t, "page b in front to take the audio", func() bool { id, _ := b.Holder(); return id == "tab-focus-b" })
}

// TestRequireTabSetting: the audio section of the settings page turns
// audio.require_tab off and on.
func TestRequireTabSetting(t *testing.T) {
	r := newRig(t, nil)
	r.login()
	base := url.Values{"audio.codecs": {"PCMU, opus"}, "audio.mic_volume": {"100"}, "audio.speaker_volume": {"80"}, "audio.ringer_volume": {"80"}}
	if res, body := r.form("/settings/audio", base); res.StatusCode != http.StatusOK || r.st.Get().Audio.RequireTab {
		t.Fatalf("unchecked: %d, require_tab %v\n%s", res.StatusCode, r.st.Get().Audio.RequireTab, body)
	}
	base.Set("audio.require_tab", "on")
	if res, _ := r.form("/settings/audio", base); res.StatusCode != http.StatusOK || !r.st.Get().Audio.RequireTab {
		t.Fatalf("checked: %d, require_tab %v", res.StatusCode, r.st.Get().Audio.RequireTab)
	}
}

// TestFallbackLinkTakenAgain: the page's fallback link is dropped by the
// bridge (another connection of the same tab took its place, then went),
// and the page asks for the fallback again: it gets a new link and its
// audio flows. The socket kept the dropped link and ignored every later
// "pcm" until the page said "off": a call in that tab went silent.
func TestFallbackLinkTakenAgain(t *testing.T) {
	r, b := audioRig(t)
	conn, err := r.dialSocket("tab-relink", r.origin, true)
	if err != nil {
		t.Fatal(err)
	}
	frame := make([]byte, 640)
	binary.LittleEndian.PutUint16(frame, 1000)
	for _, m := range []string{`{"state":"ready","focus":true}`, `{"audio":"pcm"}`} {
		if err := wsutil.WriteClientText(conn, []byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	if err := wsutil.WriteClientBinary(conn, frame); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the fallback to flow", b.Attached)
	// Another connection of the tab takes the link's place, then ends.
	other := b.AttachPCM("tab-relink")
	other.Close()
	waitFor(t, "the link to be dropped", func() bool { return !b.Attached() })
	if err := wsutil.WriteClientText(conn, []byte(`{"audio":"pcm"}`)); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(5 * time.Second); !b.Attached(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the page asked for the fallback again and got no link")
		}
		if err := wsutil.WriteClientBinary(conn, frame); err != nil {
			t.Fatal(err)
		}
	}
}
