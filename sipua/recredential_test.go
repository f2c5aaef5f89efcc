package sipua

import (
	"sync"
	"testing"
	"time"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// lockedSecrets is a keyring whose passwords the test changes while the
// phone reads them.
type lockedSecrets struct {
	mu sync.Mutex
	m  map[string]string
}

func (s *lockedSecrets) Get(name string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.m[name]; ok {
		return v, nil
	}
	return "", store.ErrNoSecret
}

func (s *lockedSecrets) set(name, v string) {
	s.mu.Lock()
	s.m[name] = v
	s.mu.Unlock()
}

// TestReregisterOnNewPassword: a registered line whose password changes
// registers again at once with the new one (issue 16 item 6). kamailio
// grants an hour, so the next refresh would come after 48 minutes: the
// REGISTERs seen here are the ones Reregister sent. A wrong new password
// is refused by the PBX (401) within seconds; the right one again makes
// the line registered.
func TestReregisterOnNewPassword(t *testing.T) {
	kam := testpeer.Kamailio(t)
	acc := account(kam, "alice", "udp")
	acc.ExpiryS = 3600
	sec := &lockedSecrets{m: map[string]string{"account:" + acc.ID: "alicepw"}}
	s := store.Settings{SIP: store.SIPSettings{Listen: "127.0.0.1:0", SelectedAccount: acc.ID}, Accounts: []store.Account{acc}}
	p := startPhoneWith(t, s, nil, nil, func(c *Config) { c.Secrets = sec })
	p.waitRegistered()

	sec.set("account:"+acc.ID, "not-alices")
	if !p.Reregister(acc.ID) {
		t.Fatal("Reregister found no running line")
	}
	e := p.wait("the PBX refusing the new password", 10*time.Second, func(e Event) bool {
		return e.Kind == EventRegistration && (e.Registration.Failed || e.Registration.OK)
	})
	if !e.Registration.Failed || e.Registration.Cause != "401 Unauthorized" {
		t.Fatalf("after a wrong new password: %+v", e.Registration)
	}

	sec.set("account:"+acc.ID, "alicepw")
	if !p.Reregister(acc.ID) {
		t.Fatal("Reregister found no running line")
	}
	e = p.wait("registered with the right password", 10*time.Second, func(e Event) bool {
		return e.Kind == EventRegistration && (e.Registration.Failed || e.Registration.OK)
	})
	if !e.Registration.OK || p.Accounts()[0].State != RegRegistered {
		t.Fatalf("after the right password: %+v", e.Registration)
	}
	if p.Reregister("no-such-account") {
		t.Fatal("Reregister of an unknown account")
	}
}
