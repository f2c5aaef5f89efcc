package api

import (
	"strings"
	"testing"

	"github.com/softphone/softphone/store"
)

func TestContactsWrite(t *testing.T) {
	e := newEnv(t)
	e.setToken()
	r := e.post("/contacts", `{"name":"Grace","number":"+1 555 0100","account_id":"`+accountA+`"}`, bearer(token))
	if r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	var c map[string]any
	r.json(t, &c)
	checkFields(t, "contact", c, contactFields)
	id := c["id"].(string)
	if c["account"] != "alice@pbx.test" {
		t.Errorf("account %v", c["account"])
	}
	r = do(t, "PUT", e.base+"/contacts/"+id, `{"name":"Grace Hopper","account_id":""}`, bearer(token))
	r.json(t, &c)
	if r.status != 200 || c["name"] != "Grace Hopper" || c["number"] != "+1 555 0100" || c["account"] != "" {
		t.Fatalf("update: %d %s", r.status, r.body)
	}
	if r := e.get("/contacts/" + id); r.status != 200 {
		t.Fatalf("get: %d", r.status)
	}
	if r := do(t, "DELETE", e.base+"/contacts/"+id, "", bearer(token)); r.status != 204 {
		t.Fatalf("delete: %d", r.status)
	}
	if r := e.get("/contacts/" + id); r.status != 404 || r.errMsg(t) != msgNoContact {
		t.Fatalf("after delete: %d %s", r.status, r.body)
	}
	if r := do(t, "PUT", e.base+"/contacts/"+id, `{"name":"x"}`, bearer(token)); r.status != 404 {
		t.Fatalf("update of a deleted one: %d", r.status)
	}
}

func TestTaxonomyWrite(t *testing.T) {
	e := newEnv(t)
	e.setToken()
	r := e.post("/taxonomy", `{"code":"legal","kind":"red_flag","severity":"high","title":"Legal threat","description":"Lawyers mentioned."}`, bearer(token))
	if r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	if r := e.post("/taxonomy", `{"code":"legal","kind":"tag","title":"Dup"}`, bearer(token)); r.status != 409 {
		t.Errorf("duplicate: %d %s", r.status, r.body)
	}
	if r := e.post("/taxonomy", `{"code":"x","kind":"colour"}`, bearer(token)); r.status != 400 {
		t.Errorf("bad kind: %d %s", r.status, r.body)
	}
	r = do(t, "PUT", e.base+"/taxonomy/legal", `{"title":"Legal"}`, bearer(token))
	if r.status != 200 || !strings.Contains(string(r.body), `"title":"Legal"`) {
		t.Errorf("update: %d %s", r.status, r.body)
	}
	if r := e.post("/taxonomy/legal/retire", "", bearer(token)); r.status != 200 || !strings.Contains(string(r.body), `"retired":true`) {
		t.Errorf("retire: %d %s", r.status, r.body)
	}
	var list []map[string]any
	e.get("/taxonomy").json(t, &list)
	found := false
	for _, x := range list {
		checkFields(t, "taxonomy", x, taxonomyFields)
		if x["code"] == "legal" {
			found = true
			if x["retired"] != true || x["severity"] != "high" || x["title"] != "Legal" {
				t.Errorf("legal %v", x)
			}
		}
		if x["kind"] != "red_flag" {
			if _, ok := x["severity"]; ok {
				t.Errorf("severity on a %v", x["kind"])
			}
		}
	}
	if !found {
		t.Error("retired entry not listed")
	}
	// Titles follow the phone's language.
	e.update(func(s *store.Settings) { s.Appearance.Language = "de" })
	e.waitSettings(func(s *store.Settings) bool { return s.Appearance.Language == "de" })
	if r := e.get("/taxonomy"); !strings.Contains(string(r.body), `"title":"Vertrieb"`) {
		t.Errorf("German titles: %.300s", r.body)
	}
}

func TestSettingsPatch(t *testing.T) {
	e := newEnv(t)
	e.setToken()
	if err := e.sec.Set("webhook-header", "Bearer hook-secret"); err != nil {
		t.Fatal(err)
	}
	r := do(t, "PATCH", e.base+"/settings", `{"webhooks":{"silenced":["call-state-changed"]},"api":{"allowed_origins":["http://crm.example"]}}`, bearer(token))
	if r.status != 200 {
		t.Fatalf("patch: %d %s", r.status, r.body)
	}
	body := string(r.body)
	for _, s := range []string{`"silenced":["call-state-changed"]`, `"allowed_origins":["http://crm.example"]`, `"token_saved":true`, `"header_value_saved":true`} {
		if !strings.Contains(body, s) {
			t.Errorf("settings lack %s", s)
		}
	}
	if strings.Contains(body, token) || strings.Contains(body, "hook-secret") {
		t.Fatal("a secret in /settings")
	}
	if got := e.set.Get().Webhooks.Silenced; len(got) != 1 {
		t.Errorf("not saved: %v", got)
	}
	if r := e.get("/settings"); strings.Contains(string(r.body), token) || !strings.Contains(string(r.body), `"token_saved":true`) {
		t.Errorf("GET /settings: %s", r.body)
	}
	r = do(t, "PATCH", e.base+"/settings", `{"api":{"port":"x"}}`, bearer(token))
	if r.status != 400 || !strings.Contains(r.errMsg(t), "api.port") {
		t.Errorf("bad type: %d %s", r.status, r.body)
	}
	r = do(t, "PATCH", e.base+"/settings", `{"appearance":{"language":"xx"}}`, bearer(token))
	if r.status != 400 || !strings.Contains(r.errMsg(t), "appearance.language") || strings.Contains(r.errMsg(t), e.home) {
		t.Errorf("bad value: %d %s", r.status, r.body)
	}
	r = do(t, "PATCH", e.base+"/settings", `[1]`, bearer(token))
	if r.status != 400 {
		t.Errorf("array patch: %d %s", r.status, r.body)
	}
	// The media timeout: 0 turns it off, under 5 s is refused and keeps
	// what was saved.
	if got := e.set.Get().SIP.MediaTimeoutS; got != 30 {
		t.Errorf("media_timeout_s default %d", got)
	}
	r = do(t, "PATCH", e.base+"/settings", `{"sip":{"media_timeout_s":2}}`, bearer(token))
	if r.status != 400 || !strings.Contains(r.errMsg(t), "sip.media_timeout_s must be 0 (never) or 5-3600 seconds") {
		t.Errorf("media_timeout_s 2: %d %s", r.status, r.body)
	}
	if got := e.set.Get().SIP.MediaTimeoutS; got != 30 {
		t.Errorf("a refused media_timeout_s changed it to %d", got)
	}
	if r := do(t, "PATCH", e.base+"/settings", `{"sip":{"media_timeout_s":0}}`, bearer(token)); r.status != 200 || !strings.Contains(string(r.body), `"media_timeout_s":0`) {
		t.Errorf("media_timeout_s 0: %d %s", r.status, r.body)
	}
}

func TestAccountsWrite(t *testing.T) {
	e := newEnv(t)
	e.setToken()
	r := e.post("/accounts", `{"name":"New","username":"carol","domain":"pbx.test","port":5060,"transport":"udp","password":"pw1"}`, bearer(token))
	if r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	var a map[string]any
	r.json(t, &a)
	checkFields(t, "account", a, accountFields)
	id := a["id"].(string)
	if a["password_saved"] != true || strings.Contains(string(r.body), "pw1") {
		t.Errorf("account %s", r.body)
	}
	if pw, _ := e.sec.Get("account:" + id); pw != "pw1" {
		t.Errorf("password not in secrets")
	}
	r = do(t, "PUT", e.base+"/accounts/"+id, `{"expiry_s":600,"transport":"tcp"}`, bearer(token))
	r.json(t, &a)
	if r.status != 200 || a["expiry_s"] != 600.0 || a["transport"] != "tcp" || a["username"] != "carol" {
		t.Errorf("update: %d %s", r.status, r.body)
	}
	r = do(t, "PUT", e.base+"/accounts/"+id, `{"transport":"sctp"}`, bearer(token))
	if r.status != 400 || !strings.Contains(r.errMsg(t), "transport") {
		t.Errorf("bad transport: %d %s", r.status, r.body)
	}
	var list []map[string]any
	e.get("/accounts").json(t, &list)
	if len(list) != 3 || list[1]["state"] != "disabled" || list[0]["state"] != "registered" {
		t.Errorf("accounts %v", list)
	}
	if r := do(t, "DELETE", e.base+"/accounts/"+id, "", bearer(token)); r.status != 204 {
		t.Fatalf("delete: %d", r.status)
	}
	if e.sec.Has("account:" + id) {
		t.Error("password kept after delete")
	}
	if r := e.get("/accounts/" + id); r.status != 404 || r.errMsg(t) != msgNoAccount {
		t.Errorf("after delete: %d %s", r.status, r.body)
	}
}
