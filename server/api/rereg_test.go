package api

import (
	"slices"
	"testing"
)

// Reregister makes the fake phone note "reregister <id>".
func (p *fakePhone) Reregister(id string) bool {
	p.record("reregister " + id)
	return true
}

// TestAccountPasswordReregisters: PUT /accounts/{id} with a password has the
// phone register the account again at once; without one it does not
// (issue 16 item 6).
func TestAccountPasswordReregisters(t *testing.T) {
	e := newEnv(t)
	e.setToken()
	r := e.post("/accounts", `{"name":"New","username":"carol","domain":"pbx.test","transport":"udp"}`, bearer(token))
	if r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	var a map[string]any
	r.json(t, &a)
	id := a["id"].(string)
	if r := do(t, "PUT", e.base+"/accounts/"+id, `{"expiry_s":600}`, bearer(token)); r.status != 200 {
		t.Fatalf("put: %d %s", r.status, r.body)
	}
	if slices.Contains(e.phone.Commands(), "reregister "+id) {
		t.Fatalf("re-registered without a new password: %v", e.phone.Commands())
	}
	if r := do(t, "PUT", e.base+"/accounts/"+id, `{"password":"newpw"}`, bearer(token)); r.status != 200 {
		t.Fatalf("put: %d %s", r.status, r.body)
	}
	if !slices.Contains(e.phone.Commands(), "reregister "+id) {
		t.Fatalf("not re-registered after a new password: %v", e.phone.Commands())
	}
}
