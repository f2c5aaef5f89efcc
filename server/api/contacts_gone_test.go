package api

import (
	"context"
	"testing"

	"github.com/softphone/softphone/store"
)

// goneDB deletes a contact (as the phone page or another client would)
// between the handler's lookup and its write.
type goneDB struct{ *store.DB }

func (d goneDB) UpdateContact(ctx context.Context, c store.Contact) (store.Contact, error) {
	if err := d.DB.DeleteContact(ctx, c.ID); err != nil {
		return c, err
	}
	return d.DB.UpdateContact(ctx, c)
}

func (d goneDB) DeleteContact(ctx context.Context, id string) error {
	if err := d.DB.DeleteContact(ctx, id); err != nil {
		return err
	}
	return d.DB.DeleteContact(ctx, id)
}

func (d goneDB) DeleteRecording(ctx context.Context, id string) error {
	if err := d.DB.DeleteRecording(ctx, id); err != nil {
		return err
	}
	return d.DB.DeleteRecording(ctx, id)
}

// TestContactGoneMeanwhileSaysNoContact: a contact deleted between the
// lookup of PUT or DELETE /contacts/{id} and its write is answered 404 "no
// contact with that id" (rest-api.md: an unknown id), not with the store's
// own text ('update contact "<id>": not found'). So is DELETE
// /ui/recordings/{id} of a recording deleted meanwhile (a second click, a
// second client): "no recording with that id".
func TestContactGoneMeanwhileSaysNoContact(t *testing.T) {
	var e0 *store.DB
	e := newEnvCfg(t, func(c *Config) {
		db, err := store.OpenDB(c.Home + "/gone.db")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
		c.DB = goneDB{db}
		e0 = db
	})
	e.db = e0
	s := e.seed()
	e.setToken()
	for _, method := range []string{"PUT", "DELETE"} {
		var ct struct{ ID string }
		e.post("/contacts", `{"name":"Ada","number":"+4930123"}`, bearer(token)).json(t, &ct)
		body := ""
		if method == "PUT" {
			body = `{"name":"Ada L."}`
		}
		r := do(t, method, e.base+"/contacts/"+ct.ID, body, bearer(token))
		if r.status != 404 || r.errMsg(t) != msgNoContact {
			t.Errorf("%s of a contact gone meanwhile: %d %s", method, r.status, r.body)
		}
	}
	r := do(t, "DELETE", e.base+"/ui/recordings/"+s.recording.ID, "", bearer(token))
	if r.status != 404 || r.errMsg(t) != msgNoRecording {
		t.Errorf("DELETE of a recording gone meanwhile: %d %s", r.status, r.body)
	}
}
