package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/store"
)

func TestAccountFormSecurityFields(t *testing.T) {
	r, _ := storeRig(t)
	form := url.Values{"username": {"alice"}, "domain": {"pbx.test"}, "transport": {"tls"}, "enabled": {"on"},
		"media_encryption": {"none"}, "media_encryption_required": {"on"}, "stun_server": {"stun.example.org"}, "do": {"save"}}
	res, body := r.form("/settings/accounts", form)
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, `id="err-media_encryption_required"`) ||
		!strings.Contains(body, `id="err-stun_server"`) {
		t.Fatalf("bad security fields: %d", res.StatusCode)
	}
	form.Set("media_encryption", "zrtp")
	if res, body := r.form("/settings/accounts", form); res.StatusCode != 422 || !strings.Contains(body, `id="err-media_encryption"`) {
		t.Fatalf("unknown encryption: %d", res.StatusCode)
	}
	form.Set("media_encryption", "sdes")
	form.Set("stun_server", "203.0.113.2:3478")
	if res, _ := r.form("/settings/accounts", form); res.StatusCode != 200 {
		t.Fatalf("save: %d", res.StatusCode)
	}
	var a store.Account
	for _, x := range r.st.Get().Accounts {
		if x.Username == "alice" && x.Domain == "pbx.test" && x.Transport == "tls" {
			a = x
		}
	}
	if a.MediaEncryption != "sdes" || !a.MediaEncryptionRequired || a.StunServer != "203.0.113.2:3478" {
		t.Fatalf("saved %+v", a)
	}
	// The edit form shows them back, with their help text, in both languages.
	_, body = r.do("GET", "/settings?account="+a.ID, nil, nil)
	for _, want := range []string{`<option value="sdes" selected>`, `name="media_encryption_required" value="on" checked`,
		`value="203.0.113.2:3478"`, "Calls that cannot be encrypted are refused", "public address"} {
		if !strings.Contains(body, want) {
			t.Errorf("edit form lacks %q", want)
		}
	}
	if _, err := r.st.Update(func(s *store.Settings) error { s.Appearance.Language = "de"; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, body = r.do("GET", "/settings?account="+a.ID, nil, nil); !strings.Contains(body, "Nur verschlüsselte Gespräche") ||
		!strings.Contains(body, "öffentliche Adresse") {
		t.Error("German help text missing")
	}
}

// TestCallCardLock: closed when signalling and media are encrypted, open
// when one is, none when neither is.
func TestCallCardLock(t *testing.T) {
	r := newRig(t, nil)
	r.login()
	now := time.Now()
	r.phone.mu.Lock()
	r.phone.calls = []sipua.Call{
		{ID: "c1", Number: "101", State: sipua.StateActive, Direction: sipua.DirOut, StateAt: now, Secure: true, TLS: true},
		{ID: "c2", Number: "102", State: sipua.StateActive, Direction: sipua.DirOut, StateAt: now, Secure: true},
		{ID: "c3", Number: "103", State: sipua.StateActive, Direction: sipua.DirOut, StateAt: now, TLS: true},
		{ID: "c4", Number: "104", State: sipua.StateActive, Direction: sipua.DirOut, StateAt: now},
	}
	r.phone.mu.Unlock()
	_, body := r.do("GET", "/", nil, nil)
	card := func(id string) string {
		i := strings.Index(body, `data-call-id="`+id+`"`)
		if i < 0 {
			t.Fatalf("no card for %s", id)
		}
		rest := body[i:]
		if j := strings.Index(rest, "</header>"); j >= 0 {
			return rest[:j]
		}
		return rest
	}
	for id, want := range map[string]string{"c1": `data-lock="closed"`, "c2": "Sound encrypted (SRTP), signalling not",
		"c3": "Signalling encrypted (TLS), sound not"} {
		if !strings.Contains(card(id), want) {
			t.Errorf("card %s lacks %s", id, want)
		}
	}
	if strings.Contains(card("c2"), `data-lock="closed"`) || !strings.Contains(card("c3"), `data-lock="open"`) {
		t.Error("a half-encrypted call shows a closed lock")
	}
	if strings.Contains(card("c4"), "data-lock") {
		t.Error("a clear call shows a lock")
	}
}
