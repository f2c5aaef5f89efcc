package api

import (
	"strings"
	"testing"

	"github.com/softphone/softphone/store"
)

// FuzzValidOrigin: whatever Origin header a page sends, an origin we would
// ask about is one api.allowed_origins can keep (the settings validation
// takes it), holds no control characters, and is short.
func FuzzValidOrigin(f *testing.F) {
	for _, s := range []string{"https://crm.example.com", "http://localhost:3000", "null", "file://", "http://[::1]:8080",
		"http://a b", "http://user@host", "http://host/path", "HTTP://HOST", "http://host:99999", "http://h\x00", "https://xn--bcher-kva.example"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, o string) {
		if !validOrigin(o) {
			return
		}
		if len(o) > maxOriginLen || strings.ContainsFunc(o, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			t.Fatalf("accepted %q", o)
		}
		st := store.DefaultSettings()
		st.API.AllowedOrigins = []string{o}
		if err := st.Validate(); err != nil {
			t.Fatalf("asked about %q, which the settings refuse: %v", o, err)
		}
	})
}
