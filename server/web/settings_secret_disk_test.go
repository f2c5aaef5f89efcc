package web

import (
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
	"github.com/softphone/softphone/views"
)

// TestSectionNotSavedWithoutItsSecret: saving the webhooks section with a
// new address and a new header value while the value cannot be kept
// (secrets.json on a full disk) saves nothing and says why; the same form
// once there is room saves both. The settings were saved before the
// secret: the page said the keyring refused while webhooks went on to the
// new address with the old receiver's header value, a credential. The
// secrets are on a 64 KiB tmpfs in a private mount namespace, as
// TestNewAccountNotKeptWithoutItsPassword.
func TestSectionNotSavedWithoutItsSecret(t *testing.T) {
	dir, inside := testpeer.OnSmallTmpfs(t, "64k")
	if !inside {
		return
	}
	sec := store.OpenSecrets(dir)
	if !sec.Fallback() {
		t.Skip("a keyring answers: the secrets are not in the tmpfs")
	}
	if err := sec.Set("webhook-header", "Bearer old-receiver"); err != nil {
		t.Fatal(err)
	}
	r := newRig(t, func(c *Config) { c.Secrets = sec })
	r.login()

	filler := testpeer.FillDisk(t, dir)
	form := url.Values{"webhooks.enabled": {"on"}, "webhooks.url": {"http://new.test/hook"}, "webhooks.method": {"POST"},
		"webhooks.events": {store.EventCallStarted, store.EventCallEnded}, "webhooks.header_name": {"Authorization"},
		"webhooks.header_value": {"Bearer new-receiver"}}
	res, body := r.form("/settings/webhooks", form)
	if want := views.L("en").T("err.keyring"); res.StatusCode != 422 || !strings.Contains(body, want) {
		t.Fatalf("no room for the header value: %d, want %q", res.StatusCode, want)
	}
	if w := r.st.Get().Webhooks; w.Enabled || w.URL != "" {
		t.Fatalf("saved with the old header value: enabled %v, %q", w.Enabled, w.URL)
	}
	if v, err := sec.Get("webhook-header"); err != nil || v != "Bearer old-receiver" {
		t.Fatalf("header value: %q %v", v, err)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if res, _ = r.form("/settings/webhooks", form); res.StatusCode != 200 {
		t.Fatalf("with room again: %d", res.StatusCode)
	}
	if w := r.st.Get().Webhooks; !w.Enabled || w.URL != "http://new.test/hook" {
		t.Fatalf("not saved: enabled %v, %q", w.Enabled, w.URL)
	}
	if v, err := sec.Get("webhook-header"); err != nil || v != "Bearer new-receiver" {
		t.Fatalf("header value: %q %v", v, err)
	}
}
