package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"testing"
	"time"

	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/store"
)

// signedWith tells whether the request h is signed with key (Standard
// Webhooks, as verify checks it).
func signedWith(key []byte, h hit) bool {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(h.Header.Get("webhook-id") + "." + h.Header.Get("webhook-timestamp") + "."))
	m.Write(h.Body)
	return h.Header.Get("webhook-signature") == "v1,"+base64.StdEncoding.EncodeToString(m.Sum(nil))
}

func whsec(key []byte) string { return "whsec_" + base64.StdEncoding.EncodeToString(key) }

// TestChangedSecretsUsedForTheNextDelivery: after the signing secret and
// the header value are changed (the Settings page keeps them, then saves
// the settings, whose watcher applies them to the sender later, on its own
// goroutine, after the phone's), the next delivery is signed with the new
// secret and carries the new value. The sender kept what it had read for
// 30 s (secretTTL), so the receiver, told the new secret, refused the
// deliveries of that half minute as forged (and the old header value, a
// credential, went on being sent). Real secrets (keyring or secrets.json)
// and a real receiver.
func TestChangedSecretsUsedForTheNextDelivery(t *testing.T) {
	sec := store.OpenSecrets(t.TempDir())
	oldKey, newKey := []byte("the old signing key of 32 bytes!"), []byte("the new signing key of 32 bytes!")
	if err := sec.Set(SecretSigning, whsec(oldKey)); err != nil {
		t.Fatal(err)
	}
	if err := sec.Set(SecretHeader, "Token old"); err != nil {
		t.Fatal(err)
	}
	rc := newReceiver(t, nil)
	st := settingsFor(rc.URL, "POST")
	st.Webhooks.HeaderName = "Authorization"
	r := newRig(t, st, func(c *Config) { c.Secrets = sec })
	newCall(r.bus, sipua.DirIn, "1")
	if h := rc.wait(t, 1)[0]; !signedWith(oldKey, h) || h.Header.Get("Authorization") != "Token old" {
		t.Fatalf("before the change: %v", h.Header)
	}
	if err := sec.Set(SecretSigning, whsec(newKey)); err != nil {
		t.Fatal(err)
	}
	if err := sec.Set(SecretHeader, "Token new"); err != nil {
		t.Fatal(err)
	}
	newCall(r.bus, sipua.DirIn, "2")
	if h := rc.wait(t, 2)[1]; !signedWith(newKey, h) || h.Header.Get("Authorization") != "Token new" {
		t.Errorf("the next delivery: signed with the new key %v, header %q", signedWith(newKey, h), h.Header.Get("Authorization"))
	}
	if err := sec.Delete(SecretSigning); err != nil {
		t.Fatal(err)
	}
	newCall(r.bus, sipua.DirIn, "3")
	if h := rc.wait(t, 3)[2]; h.Header.Get("webhook-signature") != "" {
		t.Errorf("signed after the secret was removed: %v", h.Header)
	}
}

// TestSecretsChangedElsewhereUsedAfterAQuietSpell: a secret changed by
// another process (`softphone secret set webhook-signing` while the phone
// runs) is read again before the first delivery once what was read is over
// 30 s old. That delivery was still sent with what was read before (the
// new one was read in the background for the deliveries after it), so
// after an hour without calls the first event after a rotation went out
// signed with the old secret.
func TestSecretsChangedElsewhereUsedAfterAQuietSpell(t *testing.T) {
	home := t.TempDir()
	sec := store.OpenSecrets(home)
	oldKey, newKey := []byte("the old signing key of 32 bytes!"), []byte("the new signing key of 32 bytes!")
	if err := sec.Set(SecretSigning, whsec(oldKey)); err != nil {
		t.Fatal(err)
	}
	rc := newReceiver(t, nil)
	r := newRig(t, settingsFor(rc.URL, "POST"), func(c *Config) { c.Secrets = sec })
	newCall(r.bus, sipua.DirIn, "1")
	if h := rc.wait(t, 1)[0]; !signedWith(oldKey, h) {
		t.Fatalf("before the change: %v", h.Header)
	}
	if err := store.OpenSecrets(home).Set(SecretSigning, whsec(newKey)); err != nil { // the other process
		t.Fatal(err)
	}
	r.s.mu.Lock()
	r.s.secretAt = r.s.secretAt.Add(-secretTTL - time.Second) // the quiet spell
	r.s.mu.Unlock()
	newCall(r.bus, sipua.DirIn, "2")
	if h := rc.wait(t, 2)[1]; !signedWith(newKey, h) {
		t.Errorf("the first delivery after the spell is not signed with the new key: %v", h.Header)
	}
}
