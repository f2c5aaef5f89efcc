package web

import (
	"net/url"
	"sync"
	"testing"

	"github.com/softphone/softphone/store"
)

// reregPhone notes the accounts told to register again.
type reregPhone struct {
	*testPhone
	mu  sync.Mutex
	ids []string
}

func (p *reregPhone) Reregister(id string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ids = append(p.ids, id)
	return true
}

func (p *reregPhone) told() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.ids...)
}

// TestPasswordSaveReregisters: saving an account with a new password has
// the phone register it again at once; a save without one does not (issue
// 16 item 6; sipua's TestReregisterOnNewPassword shows the PBX seeing it).
func TestPasswordSaveReregisters(t *testing.T) {
	dir := t.TempDir()
	ph := &reregPhone{testPhone: &testPhone{}}
	r := newRig(t, func(c *Config) { c.Phone = ph; c.Secrets = store.OpenSecrets(dir); c.Home = dir })
	r.login()
	acc := url.Values{"do": {"save"}, "id": {"a1"}, "name": {"Alice line"}, "username": {"alice"}, "domain": {"pbx.test"},
		"transport": {"udp"}, "enabled": {"on"}}
	if res, _ := r.form("/settings/accounts", acc); res.StatusCode != 200 {
		t.Fatalf("save: %d", res.StatusCode)
	}
	if got := ph.told(); len(got) != 0 {
		t.Fatalf("re-registered without a new password: %v", got)
	}
	acc.Set("password", "newpw")
	if res, _ := r.form("/settings/accounts", acc); res.StatusCode != 200 {
		t.Fatalf("save: %d", res.StatusCode)
	}
	if got := ph.told(); len(got) != 1 || got[0] != "a1" {
		t.Fatalf("re-registered %v, want [a1]", got)
	}
}
