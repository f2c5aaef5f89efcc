package store

import (
	"errors"
	"strings"
	"testing"
)

func TestValidateSecuritySettings(t *testing.T) {
	acc := func(f func(*Account)) func(*Settings) {
		return func(s *Settings) {
			a := Account{ID: "a", Transport: "udp"}
			f(&a)
			s.Accounts = []Account{a}
		}
	}
	for _, tc := range []struct {
		key, msg string
		fn       func(*Settings)
	}{
		{"accounts[0].media_encryption", "must be one of", acc(func(a *Account) { a.MediaEncryption = "zrtp" })},
		{"accounts[0].media_encryption_required", "needs media_encryption sdes or dtls", acc(func(a *Account) { a.MediaEncryptionRequired = true })},
		{"accounts[0].media_encryption_required", "needs media_encryption sdes or dtls", acc(func(a *Account) {
			a.MediaEncryption, a.MediaEncryptionRequired = MediaEncryptionNone, true
		})},
		{"accounts[0].stun_server", "must be host:port", acc(func(a *Account) { a.StunServer = "stun.example.org" })},
		{"accounts[0].stun_server", "port must be 1-65535", acc(func(a *Account) { a.StunServer = "stun.example.org:0" })},
		{"sip.tls_listen", "must be host:port", func(s *Settings) { s.SIP.TLSListen = "5061" }},
		{"sip.tls_listen", "port must be 0-65535", func(s *Settings) { s.SIP.TLSListen = ":70000" }},
		{"sip.tls_key_file", "go together", func(s *Settings) { s.SIP.TLSCertFile = "/etc/cert.pem" }},
	} {
		s := DefaultSettings()
		tc.fn(&s)
		err := s.Validate()
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.key+": "+tc.msg) {
			t.Errorf("%s: Validate() = %v", tc.key, err)
		}
	}
	ok := DefaultSettings()
	ok.SIP.TLSListen, ok.SIP.TLSCertFile, ok.SIP.TLSKeyFile = ":5061", "/c.pem", "/k.pem"
	ok.Accounts = []Account{{ID: "a", Transport: "tls", MediaEncryption: MediaEncryptionSDES, MediaEncryptionRequired: true,
		StunServer: "203.0.113.2:3478"}, {ID: "b", Transport: "udp", MediaEncryption: MediaEncryptionDTLS}}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid settings refused: %v", err)
	}
}

// A settings.json without media_encryption reads as "none".
func TestLoadSettingsMediaEncryptionDefault(t *testing.T) {
	path := writeSettings(t, `{"accounts": [{"id": "a", "username": "u", "domain": "pbx", "enabled": true}]}`)
	s, err := LoadSettings(path)
	if err != nil {
		t.Fatal(err)
	}
	if a := s.Accounts[0]; a.MediaEncryption != MediaEncryptionNone || a.MediaEncryptionRequired || a.StunServer != "" {
		t.Fatalf("account %+v", a)
	}
	bad := writeSettings(t, `{"accounts": [{"id": "a", "media_encryption": "srtp"}]}`)
	if _, err := LoadSettings(bad); err == nil || !strings.Contains(err.Error(), "accounts[0].media_encryption") {
		t.Fatalf("bad media_encryption: %v", err)
	}
}
