package web

import (
	"html"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/softphone/softphone/server/webhook"
	"github.com/softphone/softphone/store"
	"github.com/softphone/softphone/views"
)

// TestResendRefusalsInThePagesLanguage: "Send again" of a delivery no
// longer in the log, and while webhooks are off, says so in words of the
// page's language. The sender's error was shown as it was, with the id and
// half in German on a German page ("resend gone-id: nicht gefunden"). A
// real webhook sender on a real SQLite store.
func TestResendRefusalsInThePagesLanguage(t *testing.T) {
	db, err := store.OpenDB(filepath.Join(t.TempDir(), "softphone.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	on := store.DefaultSettings()
	on.Integration.Enabled, on.Webhooks.Enabled, on.Webhooks.URL = true, true, "http://127.0.0.1:9/hook"
	snd := webhook.New(webhook.Config{Settings: on, DB: db})
	r := newRig(t, func(c *Config) { c.DB, c.Webhooks = db, snd })
	r.login()
	off := on
	off.Webhooks.Enabled = false
	for _, lang := range []string{"en", "de"} {
		if _, err := r.st.Update(func(s *store.Settings) error { s.Appearance.Language = lang; return nil }); err != nil {
			t.Fatal(err)
		}
		l := views.L(lang)
		for _, c := range []struct {
			what string
			st   store.Settings
			want string
		}{
			{"a delivery not in the log", on, l.T("webhook.resend.gone")},
			{"webhooks off", off, l.T("webhook.resend.off")},
		} {
			snd.Apply(c.st)
			res, body := r.form("/settings/webhooks/resend/gone-id", url.Values{})
			body = html.UnescapeString(body)
			if res.StatusCode != 400 || !strings.Contains(body, c.want) || strings.Contains(body, "gone-id") || rawStoreError(body) {
				t.Errorf("%s, %s: %d %q, want %q", lang, c.what, res.StatusCode, body, c.want)
			}
		}
	}
}
