package api

import (
	"context"
	"sync"
	"testing"

	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/store"
)

// The fake phone's busy lamps: contact id -> state, per fake phone.
var fakeLamps sync.Map // *fakePhone -> map[string]sipua.ContactState

func (p *fakePhone) lamps() map[string]sipua.ContactState {
	m, _ := fakeLamps.LoadOrStore(p, map[string]sipua.ContactState{})
	return m.(map[string]sipua.ContactState)
}

func (p *fakePhone) ContactState(id string) sipua.ContactState {
	p.mu.Lock()
	defer p.mu.Unlock()
	if st, ok := p.lamps()[id]; ok {
		return st
	}
	return sipua.ContactState{LineState: sipua.LineUnknown, Presence: sipua.PresenceUnknown}
}

func (p *fakePhone) Pickup(ctx context.Context, id string) (sipua.Call, error) {
	if p.ContactState(id).LineState != sipua.LineRinging {
		return sipua.Call{}, sipua.ErrNotRinging
	}
	p.record("pickup " + id)
	return p.Dial(ctx, "**"+id, "")
}

// TestContactWatchAndLineState: watch is stored and given back; line_state
// and presence come from the phone (unknown when it knows nothing).
func TestContactWatchAndLineState(t *testing.T) {
	e := newEnv(t)
	e.setToken()
	res := e.post("/contacts", `{"name":"Bob","number":"201","watch":true}`, bearer(token))
	if res.status != 201 {
		t.Fatalf("POST /contacts: %d %s", res.status, res.body)
	}
	var ct contactJSON
	res.json(t, &ct)
	if !ct.Watch || ct.LineState != "unknown" || ct.Presence != "unknown" {
		t.Fatalf("new contact %+v, want watch true, line_state and presence unknown", ct)
	}
	e.phone.mu.Lock()
	e.phone.lamps()[ct.ID] = sipua.ContactState{LineState: sipua.LineBusy, Presence: sipua.PresenceDND}
	e.phone.mu.Unlock()
	var got contactJSON
	e.get("/contacts/"+ct.ID).json(t, &got)
	if got.LineState != "busy" || got.Presence != "dnd" || !got.Watch {
		t.Errorf("GET /contacts/{id}: %+v, want busy/dnd, watched", got)
	}
	var list []contactJSON
	e.get("/contacts").json(t, &list)
	if len(list) != 1 || list[0].LineState != "busy" {
		t.Errorf("GET /contacts: %+v", list)
	}
	res = do(t, "PUT", e.base+"/contacts/"+ct.ID, `{"watch":false}`, bearer(token))
	res.json(t, &got)
	if res.status != 200 || got.Watch || got.Name != "Bob" {
		t.Errorf("PUT watch false: %d %+v", res.status, got)
	}
	if ws, _ := e.db.WatchedContacts(context.Background()); len(ws) != 0 {
		t.Errorf("still watched in the database: %+v", ws)
	}
	if res := do(t, "PUT", e.base+"/contacts/"+ct.ID, `{"watch":"yes"}`, bearer(token)); res.status != 400 {
		t.Errorf("watch \"yes\": %d, want 400", res.status)
	}
}

// TestPickupEndpoint: 201 {"id"} with Location like POST /calls while the
// contact's line rings; 409 otherwise; 404 for an unknown contact; gone
// with the Calls group.
func TestPickupEndpoint(t *testing.T) {
	e := newEnv(t)
	c, err := e.db.CreateContact(context.Background(), store.Contact{Name: "Bob", Number: "201", Watch: true})
	if err != nil {
		t.Fatal(err)
	}
	res := e.post("/contacts/"+c.ID+"/pickup", "")
	if res.status != 409 || res.errMsg(t) != "the contact's line is not ringing" {
		t.Errorf("pickup of an idle line: %d %s", res.status, res.body)
	}
	e.phone.mu.Lock()
	e.phone.lamps()[c.ID] = sipua.ContactState{LineState: sipua.LineRinging, Presence: sipua.PresenceAvailable}
	e.phone.mu.Unlock()
	res = e.post("/contacts/"+c.ID+"/pickup", "")
	if res.status != 201 {
		t.Fatalf("pickup: %d %s", res.status, res.body)
	}
	var nc struct{ ID string }
	res.json(t, &nc)
	if nc.ID == "" || res.header.Get("Location") != "/calls/"+nc.ID {
		t.Errorf("pickup answered %s, Location %q", res.body, res.header.Get("Location"))
	}
	if _, ok := e.phone.Call(nc.ID); !ok {
		t.Errorf("the picked-up call %s is not in the phone's calls", nc.ID)
	}
	if res := e.post("/contacts/00000000-0000-0000-0000-000000000000/pickup", ""); res.status != 404 {
		t.Errorf("unknown contact: %d", res.status)
	}
	e.update(func(s *store.Settings) { s.API.Disabled = []string{store.GroupCalls} })
	e.waitSettings(func(s *store.Settings) bool { return len(s.API.Disabled) == 1 })
	if res := e.post("/contacts/"+c.ID+"/pickup", ""); res.status != 404 {
		t.Errorf("pickup with the Calls group off: %d, want 404", res.status)
	}
}

// TestAccountVoicemail: voicemail is null while unknown, the counts once
// the phone knows them; the office fields are stored and shown.
func TestAccountVoicemail(t *testing.T) {
	e := newEnv(t)
	e.setToken()
	var as []map[string]any
	e.get("/accounts").json(t, &as)
	if v, ok := as[0]["voicemail"]; !ok || v != nil {
		t.Errorf("voicemail before anything is known: %v (present %v), want null", v, ok)
	}
	e.phone.mu.Lock()
	e.phone.regs[accountA] = sipua.AccountStatus{State: "registered", Voicemail: &sipua.Voicemail{New: 2, Old: 1}}
	e.phone.mu.Unlock()
	var a accountJSON
	e.get("/accounts/"+accountA).json(t, &a)
	if a.Voicemail == nil || *a.Voicemail != (sipua.Voicemail{New: 2, Old: 1}) {
		t.Errorf("voicemail %+v, want 2 new 1 old", a.Voicemail)
	}
	res := do(t, "PUT", e.base+"/accounts/"+accountA, `{"pickup_prefix":"*8","voicemail_number":"*97","mwi":true,"presence":true}`, bearer(token))
	res.json(t, &a)
	if res.status != 200 || a.PickupPrefix != "*8" || a.VoicemailNumber != "*97" || !a.MWI || !a.Presence {
		t.Errorf("PUT office fields: %d %s", res.status, res.body)
	}
	res = do(t, "PUT", e.base+"/accounts/"+accountA, `{"pickup_prefix":"pick"}`, bearer(token))
	if res.status != 400 {
		t.Errorf("pickup_prefix \"pick\": %d %s, want 400", res.status, res.body)
	}
}
