package store

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestDefaultSettingsValid(t *testing.T) {
	d := DefaultSettings()
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	if d.UI.Port != 8376 || d.API.Port != 8377 || d.API.Enabled || !d.Integration.Enabled || d.Webhooks.Enabled ||
		d.Webhooks.Method != "POST" || d.Appearance.Language != "en" || d.Recording.Mode != "none" {
		t.Fatalf("defaults = %+v", d)
	}
}

func TestLoadSettingsMissingWritesDefaults(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	s, err := LoadSettings(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s, DefaultSettings()) {
		t.Fatalf("got %+v, want defaults", s)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", fi.Mode().Perm())
	}
	again, err := LoadSettings(path)
	if err != nil || !reflect.DeepEqual(again, s) {
		t.Fatalf("reload = %+v, %v", again, err)
	}
}

func TestLoadSettingsPartialKeepsDefaults(t *testing.T) {
	path := writeSettings(t, `{"api": {"enabled": true}, "appearance": {"language": "de"}}`)
	s, err := LoadSettings(path)
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultSettings()
	want.API.Enabled, want.Appearance.Language = true, "de"
	if !reflect.DeepEqual(s, want) {
		t.Fatalf("got %+v\nwant %+v", s, want)
	}
}

func writeSettings(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadSettingsBadFile(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		want          []string // each must be in the error
	}{
		{"syntax", "{\n  \"api\": {\"port\": 8377,}\n}", []string{"line 2", "not valid JSON"}},
		{"truncated", `{"api": {"port": 83`, []string{"not valid JSON"}},
		{"empty", ``, []string{"not valid JSON"}},
		{"not an object", `[1, 2]`, []string{"JSON object"}},
		{"trailing data", `{} {}`, []string{"after the settings object"}},
		{"unknown top key", `{"apix": {}}`, []string{"apix: unknown key"}},
		{"unknown nested key", `{"api": {"prot": 1}}`, []string{"api.prot: unknown key"}},
		{"case matters", `{"API": {"port": 1}}`, []string{"API: unknown key"}},
		{"unknown account key", `{"accounts": [{"id": "a", "pasword": "x"}]}`, []string{"accounts[0].pasword: unknown key"}},
		{"wrong type string", `{"api": {"port": "8377"}}`, []string{"api.port: must be a whole number", `"8377"`}},
		{"wrong type fraction", `{"api": {"port": 83.5}}`, []string{"api.port: must be a whole number"}},
		{"wrong type bool", `{"integration": {"enabled": "yes"}}`, []string{"integration.enabled: must be true or false"}},
		{"wrong type list", `{"api": {"disabled": "calls"}}`, []string{"api.disabled: must be a list"}},
		{"wrong type object", `{"sip": 5}`, []string{"sip: must be an object"}},
		{"wrong list element", `{"audio": {"codecs": ["PCMU", 7]}}`, []string{"audio.codecs[1]: must be a string"}},
		{"out of range int", `{"ui": {"port": 1e99}}`, []string{"ui.port"}},
		{"bad value", `{"api": {"port": 70000}}`, []string{"api.port: must be 1-65535"}},
		{"bad method", `{"webhooks": {"method": "PUT"}}`, []string{"webhooks.method", "POST, GET"}},
		{"bad group", `{"api": {"disabled": ["calls", "phones"]}}`, []string{"api.disabled[1]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeSettings(t, tc.content)
			_, err := LoadSettings(path)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, ErrSettings) {
				t.Errorf("error %v is not ErrSettings", err)
			}
			for _, w := range append(tc.want, path) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			b, _ := os.ReadFile(path)
			if string(b) != tc.content {
				t.Errorf("file changed to %q", b)
			}
			entries, _ := os.ReadDir(filepath.Dir(path))
			if len(entries) != 1 {
				t.Errorf("folder holds %d files, want only settings.json", len(entries))
			}
		})
	}
}

func TestLoadSettingsAccountIDs(t *testing.T) {
	path := writeSettings(t, `{"accounts": [{"name": "Office", "username": "alice", "domain": "pbx.example", "enabled": true, "password_saved": true}]}`)
	s, err := LoadSettings(path)
	if err != nil {
		t.Fatal(err)
	}
	a := s.Accounts[0]
	if len(a.ID) != 36 || a.Transport != "udp" || a.ExpiryS != DefaultAccountExpiryS || a.PasswordSaved {
		t.Fatalf("account = %+v", a)
	}
	again, err := LoadSettings(path)
	if err != nil || again.Accounts[0].ID != a.ID {
		t.Fatalf("the generated id did not stick: %+v, %v", again.Accounts, err)
	}
}

func TestSaveSettings(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	s := DefaultSettings()
	s.API.TokenSaved = true
	s.Webhooks.HeaderValueSaved = true
	s.Webhooks.SigningSecretSaved = true
	s.Transcription.KeySaved = true
	s.Accounts = []Account{{ID: "a1", Username: "alice", Domain: "pbx", Transport: "tls", Enabled: true, PasswordSaved: true}}
	if err := SaveSettings(path, s); err != nil {
		t.Fatal(err)
	}
	if !s.API.TokenSaved || !s.Accounts[0].PasswordSaved {
		t.Fatal("SaveSettings changed the caller's value")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte(`_saved": true`)) {
		t.Fatalf("a *_saved field was written true:\n%s", b)
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode().Perm())
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := SaveSettings(path, s); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode after rewrite %v", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temporary files left: %v", entries)
	}
	got, err := LoadSettings(path)
	if err != nil {
		t.Fatal(err)
	}
	s.StripSaved()
	s.Accounts[0].ExpiryS = DefaultAccountExpiryS // filled in when left out
	s.Accounts[0].MediaEncryption = MediaEncryptionNone
	if !reflect.DeepEqual(got, s) {
		t.Fatalf("round trip\n got %+v\nwant %+v", got, s)
	}

	// An invalid value is refused and the file stays as it was.
	before, _ := os.ReadFile(path)
	bad := s.Clone()
	bad.API.Port = 0
	if err := SaveSettings(path, bad); err == nil || !strings.Contains(err.Error(), "api.port") {
		t.Fatalf("SaveSettings(bad) = %v", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatal("file changed by a refused save")
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		key string
		fn  func(*Settings)
	}{
		{"ui.port", func(s *Settings) { s.UI.Port = 0 }},
		{"api.port", func(s *Settings) { s.API.Port = 65536 }},
		{"api.port", func(s *Settings) { s.API.Port = s.UI.Port }},
		{"api.disabled[0]", func(s *Settings) { s.API.Disabled = []string{"phones"} }},
		{"api.disabled[1]", func(s *Settings) { s.API.Disabled = []string{"calls", "calls"} }},
		{"api.allowed_origins[0]", func(s *Settings) { s.API.AllowedOrigins = []string{"localhost:3000"} }},
		{"webhooks.method", func(s *Settings) { s.Webhooks.Method = "post" }},
		{"webhooks.url", func(s *Settings) { s.Webhooks.Enabled = true }},
		{"webhooks.url", func(s *Settings) { s.Webhooks.URL = "ftp://x" }},
		{"webhooks.silenced[0]", func(s *Settings) { s.Webhooks.Silenced = []string{"call-ringing"} }},
		{"webhooks.header_name", func(s *Settings) { s.Webhooks.HeaderName = "Bad Header" }},
		{"sip.listen", func(s *Settings) { s.SIP.Listen = "5060" }},
		{"sip.listen", func(s *Settings) { s.SIP.Listen = ":99999" }},
		{"sip.rtp_port_max", func(s *Settings) { s.SIP.RTPPortMax = s.SIP.RTPPortMin }},
		{"sip.selected_account", func(s *Settings) { s.SIP.SelectedAccount = "nope" }},
		{"sip.media_timeout_s", func(s *Settings) { s.SIP.MediaTimeoutS = 4 }},
		{"sip.media_timeout_s", func(s *Settings) { s.SIP.MediaTimeoutS = -1 }},
		{"sip.media_timeout_s", func(s *Settings) { s.SIP.MediaTimeoutS = 3601 }},
		{"accounts[0].transport", func(s *Settings) { s.Accounts = []Account{{ID: "a", Transport: "sctp"}} }},
		{"accounts[0].id", func(s *Settings) { s.Accounts = []Account{{Transport: "udp"}} }},
		{"accounts[1].id", func(s *Settings) { s.Accounts = []Account{{ID: "a", Transport: "udp"}, {ID: "a", Transport: "udp"}} }},
		{"accounts[0].domain", func(s *Settings) { s.Accounts = []Account{{ID: "a", Transport: "udp", Username: "u", Enabled: true}} }},
		{"accounts[0].port", func(s *Settings) { s.Accounts = []Account{{ID: "a", Transport: "udp", Port: -1}} }},
		{"accounts[0].expiry_s", func(s *Settings) { s.Accounts = []Account{{ID: "a", Transport: "udp", ExpiryS: 5}} }},
		{"audio.mic_volume", func(s *Settings) { s.Audio.MicVolume = 101 }},
		{"audio.codecs", func(s *Settings) { s.Audio.Codecs = nil }},
		{"audio.codecs[0]", func(s *Settings) { s.Audio.Codecs = []string{"GSM"} }},
		{"appearance.theme", func(s *Settings) { s.Appearance.Theme = "blue" }},
		{"appearance.language", func(s *Settings) { s.Appearance.Language = "fr" }},
		{"hotkeys.mute", func(s *Settings) { s.Hotkeys.Mute = "alt+a" }},
		{"diagnostics.log_level", func(s *Settings) { s.Diagnostics.LogLevel = "trace" }},
		{"recording.mode", func(s *Settings) { s.Recording.Mode = "some" }},
		{"transcription.recogniser", func(s *Settings) { s.Transcription.Recogniser = "whisper" }},
		{"transcription.url", func(s *Settings) { s.Transcription.Recogniser = "http" }},
	} {
		s := DefaultSettings()
		tc.fn(&s)
		err := s.Validate()
		var fe *FieldError
		if !errors.As(err, &fe) || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.key+": ") {
			t.Errorf("%s: Validate() = %v", tc.key, err)
		}
	}
	ok := DefaultSettings()
	ok.Webhooks = WebhookSettings{Enabled: true, URL: "http://crm.local/hook?n=[number]&id=[id]", Method: "GET",
		Silenced: []string{EventCallStateChanged}, HeaderName: "Authorization"}
	ok.Accounts = []Account{{ID: "a", Username: "alice", Domain: "pbx.example", Transport: "tls", Port: 5061, Enabled: true}}
	ok.SIP.SelectedAccount = "a"
	ok.API.Disabled = []string{GroupSettings}
	ok.API.AllowedOrigins = []string{"http://localhost:3000"}
	ok.SIP.MediaTimeoutS = 0 // never
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid settings refused: %v", err)
	}
}
