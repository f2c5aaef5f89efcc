package web

import (
	"context"
	"html"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/server/api"
	"github.com/softphone/softphone/store"
	"github.com/softphone/softphone/views"
)

// TestSettingsSayTheAPIPortIsTaken: with the local API switched on and its
// port held by another program, the Settings page said nothing (no
// "Listening on", no word why), so the person never learnt why the API did
// not answer. It now says the port is taken, in the page's language, and
// stops saying it once the API listens. A real API server and a real
// listener of "another program".
func TestSettingsSayTheAPIPortIsTaken(t *testing.T) {
	other, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	port := other.Addr().(*net.TCPAddr).Port
	var apiSrv *api.Server
	r := newRig(t, func(c *Config) {
		st := c.Settings.(*store.SettingsStore)
		if _, err := st.Update(func(s *store.Settings) error {
			s.Integration.Enabled, s.API.Enabled, s.API.Port = true, true, port
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		apiSrv = api.New(api.Config{Settings: st})
		c.API = apiSrv
	})
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- apiSrv.Serve(ctx) }()
	defer func() { cancel(); <-served }()
	r.login()

	// settingsSay waits (polling, like the API's own waitAddr) until the
	// Settings page does or does not hold text.
	settingsSay := func(text string, want bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			_, body := r.do("GET", "/settings", nil, nil)
			if strings.Contains(html.UnescapeString(body), text) == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("settings page holds %q: %v, want %v", text, !want, want)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	for _, lang := range []string{"en", "de"} {
		if _, err := r.st.Update(func(s *store.Settings) error { s.Appearance.Language = lang; return nil }); err != nil {
			t.Fatal(err)
		}
		want := views.L(lang).F("api.down.taken", port)
		if !strings.Contains(want, strconv.Itoa(port)) || strings.HasPrefix(want, "api.") {
			t.Fatalf("%s: no text: %q", lang, want)
		}
		settingsSay(want, true)
	}
	// Moved to another port another program holds: the page names that one.
	other2, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer other2.Close()
	port2 := other2.Addr().(*net.TCPAddr).Port
	if _, err := r.st.Update(func(s *store.Settings) error { s.API.Port = port2; return nil }); err != nil {
		t.Fatal(err)
	}
	settingsSay(views.L("de").F("api.down.taken", port2), true)
	// Back on the first port, freed: the API listens and the words go.
	other.Close()
	if _, err := r.st.Update(func(s *store.Settings) error { s.API.Port = port; return nil }); err != nil {
		t.Fatal(err)
	}
	settingsSay("127.0.0.1:"+strconv.Itoa(port), true)
	settingsSay(views.L("de").F("api.down.taken", port), false)
}
