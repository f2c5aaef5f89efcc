package web

import (
	"html"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/softphone/softphone/store"
)

func TestDialURL(t *testing.T) {
	home := t.TempDir()
	// DialURL reads the address the running phone noted.
	if err := os.WriteFile(home+"/"+urlFile, []byte("http://127.0.0.1:8376\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	u, err := DialURL(home, "tel:+49 30 1")
	if err != nil || u != "http://127.0.0.1:8376/dial?uri=tel%3A%2B49+30+1" {
		t.Fatalf("%q %v", u, err)
	}
}

// TestSettingsSayDesktopIntegrations: the Startup section says which
// integrations are in place on this computer, before and after the user
// sets them up from the page, in English and German.
func TestSettingsSayDesktopIntegrations(t *testing.T) {
	userHome := t.TempDir()
	r := newRig(t, func(c *Config) { c.UserHome, c.Binary = userHome, "/opt/softphone/softphone" })
	r.login()
	_, body := r.do("GET", "/settings", nil, nil)
	body = html.UnescapeString(body)
	if !strings.Contains(body, "tel:, sip: and callto: links open this phone</dt>") || strings.Count(body, "not set up") != 2 {
		t.Fatalf("settings before install:\n%s", body)
	}
	res, body := r.form("/settings/startup", url.Values{"startup.open_page": {"on"}, "startup.start_at_login": {"on"}, "links.handler": {"on"}})
	if res.StatusCode != 200 {
		t.Fatalf("save startup: %d\n%s", res.StatusCode, body)
	}
	entry := filepath.Join(userHome, ".local/share/applications/softphone.desktop")
	auto := filepath.Join(userHome, ".config/autostart/softphone.desktop")
	for _, p := range []string{entry, auto} {
		if _, err := os.Stat(p); err != nil {
			t.Fatal(err)
		}
	}
	_, body = r.do("GET", "/settings", nil, nil)
	body = html.UnescapeString(body)
	for _, want := range []string{"in place (" + entry + ")", "in place (" + auto + ")", "softphone uninstall-desktop"} {
		if !strings.Contains(body, want) {
			t.Errorf("settings lack %q", want)
		}
	}
	// The Exec lines carry the phone's home, so links reach this phone.
	// (An argument is quoted only when it holds a reserved character.)
	home := r.srv.cfg.Home
	if b, _ := os.ReadFile(entry); !strings.Contains(string(b), "--home "+home+" dial %u") &&
		!strings.Contains(string(b), `--home "`+home+`" dial %u`) {
		t.Errorf("entry:\n%s", b)
	}
	res, _ = r.form("/settings/startup", url.Values{"startup.open_page": {"on"}})
	if res.StatusCode != 200 {
		t.Fatalf("save startup: %d", res.StatusCode)
	}
	if _, err := os.Stat(auto); !os.IsNotExist(err) {
		t.Errorf("autostart entry left after start at login was switched off")
	}
	if _, err := r.st.Update(func(s *store.Settings) error { s.Appearance.Language = "de"; return nil }); err != nil {
		t.Fatal(err)
	}
	_, body = r.do("GET", "/settings", nil, nil)
	body = html.UnescapeString(body)
	if !strings.Contains(body, "Desktop-Einbindung auf diesem Computer") || !strings.Contains(body, "eingerichtet ("+entry+")") ||
		!strings.Contains(body, "nicht eingerichtet") {
		t.Errorf("German settings lack the desktop status:\n%s", body)
	}
}
