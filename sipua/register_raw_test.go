package sipua

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/softphone/softphone/store"
)

// TestRegistrationRefreshBackoff423 drives the registration loop with a
// bare UDP registrar: 423 gives a longer expiry, a refresh comes before
// expiry, a refusal is retried after backoff, disabling unregisters.
func TestRegistrationRefreshBackoff423(t *testing.T) {
	reg := newRawPeer(t)
	acc := store.Account{ID: uuid.NewString(), Username: "alice", Domain: "127.0.0.1", Port: reg.port(), Transport: "udp", Enabled: true, ExpiryS: 1}
	p := startPhone(t, acc, "")
	regEvent := func(want string) Event {
		return p.wait(want, 10*time.Second, func(e Event) bool {
			return e.Kind == EventRegistration && (e.Registration.OK || e.Registration.Failed)
		})
	}
	r1, from := reg.read(t, "REGISTER")
	if header(r1, "Expires") != "1" || !strings.Contains(header(r1, "Via"), "rport") {
		t.Fatalf("first REGISTER:\n%s", r1)
	}
	ct := header(r1, "Contact")
	if !strings.Contains(ct, "127.0.0.1:"+strconv.Itoa(p.stackPort())) {
		t.Fatalf("contact %q is not our listener %d", ct, p.stackPort())
	}
	reg.reply(t, r1, from, "423 Interval Too Brief", "Min-Expires: 2")
	r2, from := reg.read(t, "REGISTER")
	if header(r2, "Expires") != "2" {
		t.Fatalf("after 423: Expires %q", header(r2, "Expires"))
	}
	reg.reply(t, r2, from, "200 OK", "Contact: "+ct+";expires=2")
	if e := regEvent("registered"); !e.Registration.OK {
		t.Fatalf("%+v", e.Registration)
	}
	start := time.Now()
	r3, from := reg.read(t, "REGISTER")
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("refresh after %v, expiry was 2 s", d)
	}
	reg.reply(t, r3, from, "403 Forbidden")
	if e := regEvent("failed"); !e.Registration.Failed || e.Registration.Cause != "403 Forbidden" || e.Registration.State != RegFailed {
		t.Fatalf("%+v", e.Registration)
	}
	r4, from := reg.read(t, "REGISTER") // retried after backoff
	reg.reply(t, r4, from, "200 OK", "Contact: "+ct+";expires=60")
	if e := regEvent("registered again"); !e.Registration.OK {
		t.Fatalf("%+v", e.Registration)
	}
	if header(r4, "Call-ID") != header(r1, "Call-ID") {
		t.Fatal("Call-ID changed between REGISTERs (RFC 3261 10.2.4)")
	}
	s := p.settingsNow()
	s.Accounts[0].Enabled = false
	p.Apply(s)
	un, from := reg.read(t, "REGISTER")
	if header(un, "Expires") != "0" {
		t.Fatalf("unregister Expires %q", header(un, "Expires"))
	}
	reg.reply(t, un, from, "200 OK")
	p.wait("disabled", 5*time.Second, func(e Event) bool { return e.Kind == EventRegistration && e.Registration.State == RegDisabled })
}

func TestRegistrationTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for Timer F (32 s)")
	}
	reg := newRawPeer(t) // never answers
	acc := store.Account{ID: uuid.NewString(), Username: "alice", Domain: "127.0.0.1", Port: reg.port(), Transport: "udp", Enabled: true}
	p := startPhone(t, acc, "")
	e := p.wait("timeout", 40*time.Second, func(e Event) bool { return e.Kind == EventRegistration && e.Registration.Failed })
	if e.Registration.Cause != "timeout" {
		t.Fatalf("cause %q", e.Registration.Cause)
	}
}
