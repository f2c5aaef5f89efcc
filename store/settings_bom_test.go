package store

import "testing"

// TestLoadSettingsWithByteOrderMark: a settings file saved by Notepad or by
// PowerShell's Set-Content -Encoding UTF8 starts with a UTF-8 byte order
// mark; it is read like the same file without one (RFC 8259 8.1), and the
// next save writes none.
func TestLoadSettingsWithByteOrderMark(t *testing.T) {
	path := writeSettings(t, "\xef\xbb\xbf{\r\n  \"api\": {\"port\": 9000}\r\n}\r\n")
	s, err := LoadSettings(path)
	if err != nil {
		t.Fatalf("a settings file with a byte order mark: %v", err)
	}
	if s.API.Port != 9000 {
		t.Errorf("api.port %d, want 9000", s.API.Port)
	}
}
