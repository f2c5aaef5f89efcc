package api

import (
	"testing"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// The token comes from the real keyring (gnome-keyring over D-Bus), never
// from a file, and a changed token takes effect after a settings change.
func TestTokenFromRealKeyring(t *testing.T) {
	testpeer.WithKeyring(t)
	e := newEnv(t)
	if e.sec.Fallback() {
		t.Fatal("secrets fell back to the file with a keyring running")
	}
	e.setToken()
	if r := e.post("/contacts", `{"number":"1"}`, bearer(token)); r.status != 201 {
		t.Fatalf("right token: %d %s", r.status, r.body)
	}
	if err := e.sec.Set("api-token", "another"); err != nil {
		t.Fatal(err)
	}
	e.update(func(*store.Settings) {}) // any settings change forgets the kept token
	waitFor(t, func() bool { return e.post("/contacts", `{"number":"2"}`, bearer("another")).status == 201 })
	if r := e.post("/contacts", `{"number":"3"}`, bearer(token)); r.status != 401 {
		t.Fatalf("old token: %d", r.status)
	}
}
