package main

import (
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/softphone/softphone/internal/testpeer"
)

// noKeyring makes the phone find no Secret Service, so secrets go to the
// 0600 fallback file; tests that need the real keyring use testpeer.KeyringEnv.
var noKeyring = []string{"DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent/bus"}

func TestVersionCommand(t *testing.T) {
	out, err := runCmd(t, "", nil, "version")
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if strings.TrimSpace(out) != "softphone 0.1.0 (source)" {
		t.Fatalf("version printed %q", out)
	}
}

func TestHelpListsFlagsAndCommands(t *testing.T) {
	out, _ := runCmd(t, "", nil, "--help")
	for _, want := range []string{"--home", "SOFTPHONE_HOME", "--no-browser", "--log-level", "secret set NAME", "secret delete NAME", "version", "install-desktop"} {
		if !strings.Contains(out, strings.TrimPrefix(want, "-")) {
			t.Errorf("help lacks %q:\n%s", want, out)
		}
	}
}

func TestFreshHomeGetsDefaultSettingsAndStopsCleanly(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	p := startPhone(t, home, noKeyring)
	if !strings.Contains(p.URL, "key=") {
		t.Fatalf("page URL carries no one-time key: %s", p.URL)
	}
	jar, _ := cookiejar.New(nil)
	resp, err := (&http.Client{Jar: jar}).Get(p.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("phone page answered %d", resp.StatusCode)
	}
	p.stop(t)
	path := filepath.Join(home, "settings.json")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("settings.json mode %v, want 0600", fi.Mode().Perm())
	}
	var s map[string]json.RawMessage
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("settings.json: %v", err)
	}
	sec := map[string]map[string]any{}
	for _, k := range []string{"api", "ui", "integration", "webhooks"} {
		m := map[string]any{}
		_ = json.Unmarshal(s[k], &m)
		sec[k] = m
	}
	if err := json.Unmarshal(s["accounts"], &[]any{}); err != nil {
		t.Fatalf("settings.json: %v", err)
	}
	if sec["api"]["enabled"] != false || sec["api"]["port"] != 8377.0 || sec["ui"]["port"] != 8376.0 ||
		sec["integration"]["enabled"] != true || sec["webhooks"]["enabled"] != false || sec["webhooks"]["method"] != "POST" {
		t.Fatalf("defaults not as documented: %s", b)
	}
	for _, f := range []string{"softphone.db"} {
		if _, err := os.Stat(filepath.Join(home, f)); err != nil {
			t.Errorf("%s not created: %v", f, err)
		}
	}
}

func TestBadSettingsFileIsRefusedAndLeftUntouched(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"not json", `{"api": {"port": 8377,}}`, "settings.json"},
		{"unknown key", `{"api": {"prot": 8377}}`, "api.prot"},
		{"wrong type", `{"api": {"port": "eighty"}}`, "api.port"},
		{"out of range", `{"api": {"port": 70000}}`, "api.port"},
		{"bad method", `{"webhooks": {"method": "PUT"}}`, "webhooks.method"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			path := filepath.Join(home, "settings.json")
			if err := os.WriteFile(path, []byte(tc.body), 0o600); err != nil {
				t.Fatal(err)
			}
			out, err := runCmd(t, "", noKeyring, "--home", home, "--no-browser")
			if err == nil {
				t.Fatalf("phone started with a bad settings file:\n%s", out)
			}
			if !strings.Contains(out, tc.want) || !strings.Contains(out, path) {
				t.Fatalf("error does not name %q and the file:\n%s", tc.want, out)
			}
			if b, _ := os.ReadFile(path); string(b) != tc.body {
				t.Fatalf("settings file was changed to %q", b)
			}
		})
	}
}

func TestTwoPhonesSideBySide(t *testing.T) {
	port := testpeer.FreeTCPPort(t)
	var homes []string
	for i := 0; i < 2; i++ {
		home := t.TempDir()
		writeSettings(t, home, map[string]any{"ui": map[string]any{"port": port}})
		homes = append(homes, home)
	}
	a := startPhone(t, homes[0], noKeyring)
	b := startPhone(t, homes[1], noKeyring)
	if a.URL == b.URL || !strings.Contains(a.URL, ":"+strconv.Itoa(port)+"/") {
		t.Fatalf("pages: %s and %s (first should have port %d, second another)", a.URL, b.URL, port)
	}
	a.stop(t)
	b.stop(t)
}

// writeSettings writes settings.json. The binary's tests place calls through
// the API with no browser tab, so audio.require_tab is false unless a test
// names it (issue 13).
func writeSettings(t *testing.T, home string, s map[string]any) {
	t.Helper()
	audio, _ := s["audio"].(map[string]any)
	if audio == nil {
		audio = map[string]any{}
		s["audio"] = audio
	}
	if _, set := audio["require_tab"]; !set {
		audio["require_tab"] = false
	}
	b, _ := json.Marshal(s)
	if err := os.WriteFile(filepath.Join(home, "settings.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
}
