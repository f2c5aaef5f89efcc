package web

import (
	"bufio"
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/softphone/softphone/sipua"
)

// The test phone's busy lamps, per test phone.
var testLamps sync.Map // *testPhone -> map[string]sipua.ContactState

func (p *testPhone) lamps() map[string]sipua.ContactState {
	m, _ := testLamps.LoadOrStore(p, map[string]sipua.ContactState{})
	return m.(map[string]sipua.ContactState)
}

func (p *testPhone) ContactState(id string) sipua.ContactState {
	p.mu.Lock()
	defer p.mu.Unlock()
	if st, ok := p.lamps()[id]; ok {
		return st
	}
	return sipua.ContactState{LineState: sipua.LineUnknown, Presence: sipua.PresenceUnknown}
}

func (p *testPhone) Pickup(_ context.Context, id string) (sipua.Call, error) {
	if p.ContactState(id).LineState != sipua.LineRinging {
		return sipua.Call{}, sipua.ErrNotRinging
	}
	return sipua.Call{ID: "c-picked"}, p.note("pickup " + id)
}

func (p *testPhone) CallVoicemail(_ context.Context, acc string) (sipua.Call, error) {
	return sipua.Call{ID: "c-vm"}, p.note("voicemail " + acc)
}

// eventsUntil reads the page event stream until a line holds substr.
func (r *rig) eventsUntil(t *testing.T, substr string) string {
	t.Helper()
	req, _ := http.NewRequest("GET", r.origin+"/events", nil)
	req.AddCookie(r.cookie)
	res, err := (&http.Client{}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	rd := bufio.NewReader(res.Body)
	var seen strings.Builder
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("stream ended before %q:\n%s", substr, seen.String())
		}
		seen.WriteString(line)
		if strings.Contains(line, substr) {
			return line
		}
	}
}

// TestLampsPanelAndPickup: a watched contact shows in the live panel with
// its line and presence; while it rings a pickup button takes the call; a
// pickup of a line that does not ring is refused in words.
func TestLampsPanelAndPickup(t *testing.T) {
	r, db := storeRig(t)
	ctx := context.Background()
	res, _ := r.form("/contacts", url.Values{"name": {"Bob"}, "number": {"201"}, "watch": {"on"}})
	if res.StatusCode != http.StatusNoContent {
		t.Fatalf("create: %d", res.StatusCode)
	}
	ws, _ := db.WatchedContacts(ctx)
	if len(ws) != 1 || !ws[0].Watch {
		t.Fatalf("watched contacts %+v", ws)
	}
	id := ws[0].ID
	line := r.eventsUntil(t, "event: lamps")
	if !strings.Contains(line, "event: lamps") {
		t.Fatal(line)
	}
	r.phone.mu.Lock()
	r.phone.lamps()[id] = sipua.ContactState{LineState: sipua.LineRinging, Presence: sipua.PresenceBusy}
	r.phone.mu.Unlock()
	data := r.eventsUntil(t, `data-line="ringing"`)
	if !strings.Contains(data, "/contacts/"+id+"/pickup") || !strings.Contains(data, "ringing") || !strings.Contains(data, "busy") {
		t.Errorf("panel of a ringing line: %s", data)
	}
	if res, _ := r.form("/contacts/"+id+"/pickup", nil); res.StatusCode != http.StatusNoContent {
		t.Fatalf("pickup: %d", res.StatusCode)
	}
	if cmds := r.phone.commands(); len(cmds) == 0 || cmds[len(cmds)-1] != "pickup "+id {
		t.Errorf("phone commands %v", cmds)
	}
	r.phone.mu.Lock()
	r.phone.lamps()[id] = sipua.ContactState{LineState: sipua.LineIdle, Presence: sipua.PresenceAvailable}
	r.phone.mu.Unlock()
	res, body := r.form("/contacts/"+id+"/pickup", nil)
	if res.StatusCode != http.StatusConflict || !strings.Contains(body, "not ringing") {
		t.Errorf("pickup of an idle line: %d %q", res.StatusCode, body)
	}
	// The contact list shows the line of watched contacts; the form keeps the box.
	_, page := r.do("GET", "/contacts?edit="+id, nil, nil)
	if !strings.Contains(page, `data-line="idle"`) || !strings.Contains(page, `name="watch" value="on" checked`) {
		t.Errorf("contacts page lacks the line state or the ticked watch box")
	}
	// Unticked: no longer watched.
	r.form("/contacts/"+id, url.Values{"name": {"Bob"}, "number": {"201"}})
	if ws, _ := db.WatchedContacts(ctx); len(ws) != 0 {
		t.Errorf("still watched after unticking: %+v", ws)
	}
}

// TestPresenceChoiceAndVoicemail: the header's status choice sets
// do-not-disturb or the presence status; voicemail counts and the call
// button show for accounts watching their mailbox.
func TestPresenceChoiceAndVoicemail(t *testing.T) {
	r := newRig(t, nil)
	r.login()
	if res, _ := r.form("/presence", url.Values{"status": {"dnd"}}); res.StatusCode != http.StatusNoContent {
		t.Fatalf("dnd: %d", res.StatusCode)
	}
	if s := r.srv.cfg.Settings.Get(); !s.SIP.DoNotDisturb {
		t.Errorf("dnd not set: %+v", s.SIP)
	}
	r.form("/presence", url.Values{"status": {"away"}})
	if s := r.srv.cfg.Settings.Get(); s.SIP.DoNotDisturb || s.SIP.PresenceStatus != "away" {
		t.Errorf("away: %+v", s.SIP)
	}
	if res, _ := r.form("/presence", url.Values{"status": {"sleeping"}}); res.StatusCode != http.StatusBadRequest {
		t.Errorf("unknown status: %d", res.StatusCode)
	}
	r.phone.mu.Lock()
	r.phone.accounts[0].MWI = true
	r.phone.accounts[0].VoicemailNumber = "*97"
	r.phone.accounts[0].Voicemail = &sipua.Voicemail{New: 2, Old: 1}
	r.phone.mu.Unlock()
	line := r.eventsUntil(t, "/voicemail/a1/call")
	if !strings.Contains(line, "2 new, 1 old") || !strings.Contains(line, `value="away" selected`) {
		t.Errorf("header: %s", line)
	}
	if res, _ := r.form("/voicemail/a1/call", nil); res.StatusCode != http.StatusNoContent {
		t.Errorf("call voicemail: %d", res.StatusCode)
	}
}

// TestAccountOfficeFields: the account form keeps pickup prefix, voicemail
// number, mailbox and presence switches; a bad prefix is refused next to
// the field.
func TestAccountOfficeFields(t *testing.T) {
	r := newRig(t, nil)
	r.login()
	v := url.Values{"do": {"save"}, "id": {"a1"}, "name": {"Alice line"}, "username": {"alice"}, "domain": {"pbx.test"},
		"transport": {"udp"}, "enabled": {"on"}, "pickup_prefix": {"*8"}, "voicemail_number": {"*97"}, "mwi": {"on"}, "presence": {"on"}}
	if res, _ := r.form("/settings/accounts", v); res.StatusCode != http.StatusOK {
		t.Fatalf("save: %d", res.StatusCode)
	}
	a := r.srv.cfg.Settings.Get().Accounts[0]
	if a.PickupPrefix != "*8" || a.VoicemailNumber != "*97" || !a.MWI || !a.Presence {
		t.Errorf("account %+v", a)
	}
	v.Set("pickup_prefix", "pick up")
	res, body := r.form("/settings/accounts", v)
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, `id="err-pickup_prefix"`) {
		t.Errorf("bad prefix: %d", res.StatusCode)
	}
	if got := r.srv.cfg.Settings.Get().Accounts[0].PickupPrefix; got != "*8" {
		t.Errorf("prefix changed to %q by a refused form", got)
	}
}
