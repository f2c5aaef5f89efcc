package web

import (
	"context"
	"fmt"
	"html"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/softphone/softphone/store"
	"github.com/softphone/softphone/views"
)

// resender answers "Send again" as the webhook sender does
// (server/webhook's TestResendRefusalsAreTheStores checks that it does):
// refused while off or with the queue full with the store's errors, and the
// delivery looked up in the real delivery log otherwise. The pages import
// only the store (ARCHITECTURE.md), so the test does not build the sender.
type resender struct {
	db  *store.DB
	err error // the refusal before the log is read: off, full
}

func (r *resender) Deliveries(ctx context.Context, limit int) ([]store.Delivery, error) {
	return r.db.Deliveries(ctx, limit)
}

func (r *resender) Resend(ctx context.Context, id string) error {
	if r.err != nil {
		return fmt.Errorf("resend %s: %w", id, r.err)
	}
	if _, err := r.db.GetDelivery(ctx, id); err != nil {
		return fmt.Errorf("resend %s: %w", id, err)
	}
	return nil
}

// TestResendRefusalsInThePagesLanguage: "Send again" of a delivery no
// longer in the log, while webhooks are off, and with the queue full says
// so in words of the page's language. The sender's error was shown as it
// was, with the id and half in German on a German page ("resend gone-id:
// nicht gefunden"). A real SQLite store.
func TestResendRefusalsInThePagesLanguage(t *testing.T) {
	db, err := store.OpenDB(filepath.Join(t.TempDir(), "softphone.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	snd := &resender{db: db}
	r := newRig(t, func(c *Config) { c.DB, c.Webhooks = db, snd })
	r.login()
	for _, lang := range []string{"en", "de"} {
		if _, err := r.st.Update(func(s *store.Settings) error { s.Appearance.Language = lang; return nil }); err != nil {
			t.Fatal(err)
		}
		l := views.L(lang)
		for _, c := range []struct {
			what string
			err  error
			want string
		}{
			{"a delivery not in the log", nil, l.T("webhook.resend.gone")},
			{"webhooks off", store.ErrWebhooksOff, l.T("webhook.resend.off")},
			{"the queue full", store.ErrOutboxFull, l.T("webhook.resend.full")},
		} {
			snd.err = c.err
			res, body := r.form("/settings/webhooks/resend/gone-id", url.Values{})
			body = html.UnescapeString(body)
			if res.StatusCode != 400 || !strings.Contains(body, c.want) || strings.Contains(body, "gone-id") || rawStoreError(body) {
				t.Errorf("%s, %s: %d %q, want %q", lang, c.what, res.StatusCode, body, c.want)
			}
		}
	}
}
