package webhook

import (
	"context"
	"encoding/base64"
	"testing"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/store"
)

// The header value and the signing secret come from the real keyring
// (gnome-keyring over D-Bus); a value saved later is used after Apply.
func TestRealKeyringHeaderAndSigning(t *testing.T) {
	testpeer.WithKeyring(t)
	sec := store.OpenSecrets(t.TempDir())
	if sec.Fallback() {
		t.Fatal("keyring not reachable")
	}
	key := []byte("a signing key of 32 bytes length")
	if err := sec.Set(SecretSigning, "whsec_"+base64.StdEncoding.EncodeToString(key)); err != nil {
		t.Fatal(err)
	}
	rc := newReceiver(t, nil)
	st := settingsFor(rc.URL, "POST")
	st.Webhooks.HeaderName = "Authorization"
	r := newRig(t, st, func(c *Config) { c.Secrets = sec })
	newCall(r.bus, sipua.DirIn, "1")
	h := rc.wait(t, 1)[0]
	if h.Header.Get("Authorization") != "" {
		t.Error("a header sent while no value is saved")
	}
	verify(t, key, h, h.Body)

	if err := sec.Set(SecretHeader, "Token abc"); err != nil {
		t.Fatal(err)
	}
	r.s.Apply(st) // the settings page saves the value, then the settings
	newCall(r.bus, sipua.DirIn, "2")
	h = rc.wait(t, 2)[1]
	if h.Header.Get("Authorization") != "Token abc" {
		t.Errorf("real event: Authorization %q", h.Header.Get("Authorization"))
	}
	verify(t, key, h, h.Body)
	if _, err := r.s.SendTest(context.Background()); err != nil {
		t.Fatal(err)
	}
	h = rc.wait(t, 3)[2]
	if h.Header.Get("Authorization") != "Token abc" || h.Header.Get(TestHeader) != "true" {
		t.Errorf("test event headers %v", h.Header)
	}
	verify(t, key, h, h.Body)
}
