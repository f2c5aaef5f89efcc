package sipua

import (
	"testing"
	"time"

	"github.com/softphone/softphone/internal/testpeer"
)

func TestRegisterDigestUDPAndTCP(t *testing.T) {
	kam := testpeer.Kamailio(t)
	for _, tr := range []string{"udp", "tcp"} {
		t.Run(tr, func(t *testing.T) {
			p := startPhone(t, account(kam, "alice", tr), "alicepw")
			e := p.wait("registered", 10*time.Second, func(e Event) bool { return e.Kind == EventRegistration && (e.Registration.OK || e.Registration.Failed) })
			if !e.Registration.OK || e.Registration.State != RegRegistered {
				t.Fatalf("registration: %+v\n%s", e.Registration, kam.Log())
			}
			if got := p.Accounts()[0].State; got != RegRegistered {
				t.Fatalf("account state %q", got)
			}
			if !testpeer.WaitFor(5*time.Second, func() bool { return kam.Registered() >= 1 }) {
				t.Fatalf("kamailio holds no contact")
			}
		})
	}
}

func TestRegisterWrongPasswordFails(t *testing.T) {
	kam := testpeer.Kamailio(t)
	p := startPhone(t, account(kam, "bob", "udp"), "wrong")
	e := p.wait("failed registration", 10*time.Second, func(e Event) bool { return e.Kind == EventRegistration && (e.Registration.OK || e.Registration.Failed) })
	if !e.Registration.Failed || e.Registration.State != RegFailed || e.Registration.Cause == "" {
		t.Fatalf("registration: %+v", e.Registration)
	}
	st := p.Accounts()[0]
	if st.State != RegFailed || st.Cause != e.Registration.Cause {
		t.Fatalf("account %+v", st)
	}
	t.Logf("cause %q", st.Cause)
}

func TestRegisterDisableAndRemoveUnregister(t *testing.T) {
	kam := testpeer.Kamailio(t)
	acc := account(kam, "carol", "udp")
	p := startPhone(t, acc, "carolpw")
	p.waitRegistered()
	if !testpeer.WaitFor(5*time.Second, func() bool { return kam.Registered() == 1 }) {
		t.Fatal("not registered at kamailio")
	}
	s := p.settingsNow()
	s.Accounts[0].Enabled = false
	p.Apply(s)
	p.wait("disabled", 10*time.Second, func(e Event) bool { return e.Kind == EventRegistration && e.Registration.State == RegDisabled })
	if !testpeer.WaitFor(5*time.Second, func() bool { return kam.Registered() == 0 }) {
		t.Fatal("still registered at kamailio after disable")
	}
	s.Accounts[0].Enabled = true
	p.Apply(s)
	p.waitRegistered()
	s.Accounts = nil
	p.Apply(s)
	p.wait("unregistered", 10*time.Second, func(e Event) bool { return e.Kind == EventRegistration && e.Registration.State == RegUnregistered })
	if !testpeer.WaitFor(5*time.Second, func() bool { return kam.Registered() == 0 }) {
		t.Fatal("still registered at kamailio after removal")
	}
	if len(p.Accounts()) != 0 {
		t.Fatal("removed account still listed")
	}
}

func TestTestRegistration(t *testing.T) {
	kam := testpeer.Kamailio(t)
	acc := account(kam, "alice", "tcp")
	p := startPhone(t, acc, "alicepw")
	p.waitRegistered()
	line, err := p.TestRegistration(bg, account(kam, "bob", "udp"), "bobpw")
	if err != nil || line != "200 OK" {
		t.Fatalf("good password: %q %v", line, err)
	}
	line, err = p.TestRegistration(bg, account(kam, "bob", "udp"), "nope")
	if err == nil || line != "401 Unauthorized" {
		t.Fatalf("bad password: %q %v", line, err)
	}
	// The real registration is untouched.
	if st := p.Accounts()[0].State; st != RegRegistered || kam.Registered() != 1 {
		t.Fatalf("state %s, %d contacts", st, kam.Registered())
	}
}

// TestApplyMovesListener: a new sip.listen moves the listener and the
// line registers again with the new Contact.
func TestApplyMovesListener(t *testing.T) {
	kam := testpeer.Kamailio(t)
	p := startPhone(t, account(kam, "alice", "udp"), "alicepw")
	p.waitRegistered()
	oldPort := p.stackPort()
	newPort := testpeer.FreeSIPPort(t)
	s := p.settingsNow()
	s.SIP.Listen = "127.0.0.1:" + itoa(newPort)
	p.Apply(s)
	p.waitRegistered()
	if got := p.stackPort(); got != newPort || got == oldPort {
		t.Fatalf("listening on %d, want %d", got, newPort)
	}
	if c := p.Accounts()[0]; c.State != RegRegistered {
		t.Fatalf("%+v", c)
	}
}
