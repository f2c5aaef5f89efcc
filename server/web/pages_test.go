package web

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/store"
)

// The real store parts satisfy what the pages declare.
var (
	_ DB            = (*store.DB)(nil)
	_ PerDay        = (*store.DB)(nil)
	_ SettingsStore = (*store.SettingsStore)(nil)
	_ Secrets       = (*store.Secrets)(nil)
)

// storeRig is a rig with a real SQLite store and real secrets (the keyring,
// or secrets.json when there is none) in the test's folder.
func storeRig(t *testing.T) (*rig, *store.DB) {
	t.Helper()
	dir := t.TempDir()
	db, err := store.OpenDB(filepath.Join(dir, "softphone.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	sec := store.OpenSecrets(dir)
	r := newRig(t, func(c *Config) { c.DB = db; c.Secrets = sec; c.Home = dir })
	r.login()
	return r, db
}

func TestEveryPageRendersInBothLanguages(t *testing.T) {
	r, db := storeRig(t)
	ctx := context.Background()
	if _, err := db.CreateContact(ctx, store.Contact{Name: "Bob Builder", Number: "+4930123"}); err != nil {
		t.Fatal(err)
	}
	start := time.Now().Add(-time.Hour)
	e := store.HistoryEntry{ID: "h1", CallID: "call-1", Direction: "in", Number: "+4930123", Name: "Bob Builder", StartedAt: start}
	if err := db.StartHistory(ctx, e); err != nil {
		t.Fatal(err)
	}
	e.Outcome, e.Reason, e.EndedAt, e.DurationS, e.Jitter, e.Loss = "answered", "remote-hangup", start.Add(time.Minute), 60, 12, 0.01
	if err := db.FinishHistory(ctx, e); err != nil {
		t.Fatal(err)
	}
	for _, lang := range []struct{ code, settings, phone string }{{"en", "Settings", "Phone"}, {"de", "Einstellungen", "Telefon"}} {
		if _, err := r.st.Update(func(s *store.Settings) error { s.Appearance.Language = lang.code; return nil }); err != nil {
			t.Fatal(err)
		}
		for _, p := range []struct{ path, want string }{
			{"/", lang.phone}, {"/contacts", "Bob Builder"}, {"/history", "Bob Builder"}, {"/settings", lang.settings},
			{"/recordings", `lang="` + lang.code + `"`}, {"/dial?uri=tel:%2B49-30-999", "+4930999"},
		} {
			res, body := r.do("GET", p.path, nil, nil)
			if res.StatusCode != 200 || !strings.Contains(body, p.want) || !strings.Contains(body, `lang="`+lang.code+`"`) {
				t.Errorf("%s %s: %d, want %q", lang.code, p.path, res.StatusCode, p.want)
			}
		}
	}
	// The history chart draws the answered call of today.
	_, body := r.do("GET", "/history", nil, nil)
	if !strings.Contains(body, `<rect class="answered"`) {
		t.Errorf("no bar in the chart")
	}
}

func TestSettingsErrorsNextToFieldAndNothingSaved(t *testing.T) {
	r, _ := storeRig(t)
	before := r.st.Get()
	v := url.Values{"api.port": {"70000"}, "api.enabled": {"on"}, "api.groups": {"calls"}}
	res, body := r.form("/settings/api", v)
	if res.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("status %d", res.StatusCode)
	}
	// The message follows the field and the field points at it.
	i := strings.Index(body, `id="f-api.port"`)
	j := strings.Index(body, `id="err-api.port"`)
	if i < 0 || j < i || !strings.Contains(body[i:j], `aria-invalid="true"`) || !strings.Contains(body[i:j], `aria-describedby="hint-api.port err-api.port"`) {
		t.Fatalf("error not next to the field")
	}
	if !strings.Contains(body[j:], "1 to 65535") {
		t.Fatalf("message missing")
	}
	if got := r.st.Get(); got.API.Enabled != before.API.Enabled || got.API.Port != before.API.Port {
		t.Fatalf("a refused form was saved: %+v", got.API)
	}
	// Other sections: each bad value gets its own message.
	for _, tc := range []struct {
		section string
		form    url.Values
		field   string
	}{
		{"audio", url.Values{"audio.codecs": {"PCMU, speex"}, "audio.mic_volume": {"50"}, "audio.speaker_volume": {"50"}, "audio.ringer_volume": {"50"}}, "audio.codecs"},
		{"audio", url.Values{"audio.codecs": {"PCMU"}, "audio.mic_volume": {"101"}, "audio.speaker_volume": {"50"}, "audio.ringer_volume": {"50"}}, "audio.mic_volume"},
		{"hotkeys", url.Values{"hotkeys.answer": {"Alt+A+B"}}, "hotkeys.answer"},
		{"webhooks", url.Values{"webhooks.enabled": {"on"}, "webhooks.url": {"ftp://x"}, "webhooks.method": {"POST"}}, "webhooks.url"},
		{"appearance", url.Values{"appearance.theme": {"pink"}, "appearance.language": {"en"}}, "appearance.theme"},
	} {
		res, body := r.form("/settings/"+tc.section, tc.form)
		if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, `id="err-`+tc.field+`"`) {
			t.Errorf("%s %s: %d", tc.section, tc.field, res.StatusCode)
		}
	}
}

func TestSettingsUpdateTakesEffectAtOnce(t *testing.T) {
	r, _ := storeRig(t)
	port := freePort(t)
	v := url.Values{"api.port": {itoa(port)}, "api.enabled": {"on"}, "api.groups": {"calls", "accounts"}, "api.token": {"s3cret-token"}}
	res, body := r.form("/settings/api", v)
	if res.StatusCode != 200 || !strings.Contains(body, "Saved.") {
		t.Fatalf("status %d", res.StatusCode)
	}
	got := r.st.Get().API
	if !got.Enabled || got.Port != port || strings.Join(got.Disabled, ",") != "contacts,history,settings,counters" {
		t.Fatalf("api settings %+v", got)
	}
	if strings.Contains(body, "s3cret-token") {
		t.Fatal("the token is shown")
	}
	if !r.srv.cfg.Secrets.Has("api-token") {
		t.Fatal("token not kept")
	}
	// Language: the next page is German.
	res, _ = r.form("/settings/appearance", url.Values{"appearance.theme": {"dark"}, "appearance.language": {"de"}})
	if res.StatusCode != 200 || res.Header.Get("HX-Refresh") != "true" {
		t.Fatalf("appearance: %d", res.StatusCode)
	}
	_, body = r.do("GET", "/settings", nil, nil)
	if !strings.Contains(body, "Einstellungen") || !strings.Contains(body, `data-theme="dark"`) {
		t.Fatal("language or theme not applied")
	}
	// An account: saved with a generated id, its password in the keyring only.
	res, body = r.form("/settings/accounts", url.Values{"do": {"save"}, "username": {"bob"}, "domain": {"pbx.test"}, "transport": {"udp"}, "password": {"bobpw"}, "enabled": {"on"}})
	if res.StatusCode != 200 {
		t.Fatalf("account: %d %s", res.StatusCode, body)
	}
	accs := r.st.Get().Accounts[1:]
	if len(accs) != 1 || accs[0].ID == "" || accs[0].Username != "bob" {
		t.Fatalf("accounts %+v", accs)
	}
	if pw, err := r.srv.cfg.Secrets.Get("account:" + accs[0].ID); err != nil || pw != "bobpw" {
		t.Fatalf("password %q %v", pw, err)
	}
	// The registration test shows the PBX's answer.
	_, body = r.form("/settings/accounts", url.Values{"do": {"test"}, "id": {accs[0].ID}, "username": {"bob"}, "domain": {"pbx.test"}, "transport": {"udp"}})
	if !strings.Contains(body, "(200 OK)</output>") {
		t.Fatalf("no registration answer: %s", regtestPart(body))
	}
	// A missing user name is an error next to the field.
	res, body = r.form("/settings/accounts", url.Values{"do": {"save"}, "domain": {"pbx.test"}, "transport": {"udp"}})
	if res.StatusCode != 422 || !strings.Contains(body, `id="err-username"`) {
		t.Fatalf("account validation: %d", res.StatusCode)
	}
}

func TestContactsAndHistoryEdits(t *testing.T) {
	r, db := storeRig(t)
	ctx := context.Background()
	res, _ := r.form("/contacts", url.Values{"name": {"Carol"}, "number": {"tel:+49 30 555"}})
	if res.StatusCode != http.StatusNoContent || res.Header.Get("HX-Location") == "" {
		t.Fatalf("create: %d", res.StatusCode)
	}
	list, _ := db.ListContacts(ctx, "")
	if len(list) != 1 || list[0].Number != "+4930555" {
		t.Fatalf("contacts %+v", list)
	}
	res, body := r.form("/contacts", url.Values{"name": {""}, "number": {"1"}})
	if res.StatusCode != 422 || !strings.Contains(body, `id="err-name"`) {
		t.Fatalf("validation: %d", res.StatusCode)
	}
	// Export and import round trip, vCard and CSV.
	_, vcf := r.do("GET", "/contacts/export.vcf", nil, nil)
	_, csvText := r.do("GET", "/contacts/export.csv", nil, nil)
	if !strings.Contains(vcf, "FN:Carol") || !strings.Contains(csvText, "Carol,+4930555") {
		t.Fatalf("export: %q %q", vcf, csvText)
	}
	for _, f := range []struct{ name, body string }{{"c.vcf", vcf}, {"c.csv", csvText}} {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		fw, _ := mw.CreateFormFile("file", f.name)
		fw.Write([]byte(f.body))
		mw.WriteField("csrf", r.csrf)
		mw.Close()
		res, body := r.do("POST", "/contacts/import", &buf, map[string]string{"Content-Type": mw.FormDataContentType(), "Origin": r.origin})
		if res.StatusCode != 200 || !strings.Contains(body, "1 contacts imported") {
			t.Fatalf("import %s: %d", f.name, res.StatusCode)
		}
	}
	if list, _ := db.ListContacts(ctx, "Carol"); len(list) != 3 {
		t.Fatalf("after import: %d", len(list))
	}
	// History: tags from the taxonomy and a note.
	tax, err := db.ListTaxonomy(ctx)
	if err != nil || len(tax) == 0 {
		t.Fatalf("taxonomy %v", err)
	}
	e := store.HistoryEntry{ID: "h2", CallID: "call-2", Direction: "out", Number: "+4930555", StartedAt: time.Now()}
	if err := db.StartHistory(ctx, e); err != nil {
		t.Fatal(err)
	}
	res, _ = r.form("/history/h2/tags", url.Values{"tags": {tax[0].Code}})
	if res.StatusCode != 200 {
		t.Fatalf("tags: %d", res.StatusCode)
	}
	res, _ = r.form("/history/h2/note", url.Values{"note": {"called about the invoice"}})
	if res.StatusCode != 200 {
		t.Fatalf("note: %d", res.StatusCode)
	}
	got, _ := db.GetHistory(ctx, "h2")
	if len(got.Tags) != 1 || got.Note != "called about the invoice" {
		t.Fatalf("entry %+v", got)
	}
	// Retired entries are not offered for new tags but still shown on old calls.
	if err := db.RetireTaxonomy(ctx, tax[0].Code); err != nil {
		t.Fatal(err)
	}
	_, body = r.do("GET", "/history", nil, nil)
	if !strings.Contains(body, `badge retired`) {
		t.Fatal("retired tag not shown on the old call")
	}
}
