package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestTaxonomyAddEditRetire(t *testing.T) {
	r, db := storeRig(t)
	ctx := context.Background()
	// A red flag needs a severity; the message is next to the field.
	form := url.Values{"code": {"urgent"}, "kind": {"red_flag"}, "severity": {""}, "title_en": {"Urgent"}, "title_de": {"Dringend"}, "triggers": {"right now, immediately"}}
	res, body := r.form("/settings/taxonomy", form)
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, `id="err-severity"`) {
		t.Fatalf("missing severity: %d", res.StatusCode)
	}
	form.Set("severity", "high")
	if res, _ := r.form("/settings/taxonomy", form); res.StatusCode != 200 {
		t.Fatalf("create: %d", res.StatusCode)
	}
	e, err := db.GetTaxonomy(ctx, "urgent")
	if err != nil || e.Titles["de"] != "Dringend" || e.Severity != "high" || len(e.Triggers) != 2 {
		t.Fatalf("created %+v %v", e, err)
	}
	// Edit: titles per language change, the code stays.
	form.Set("edit", "1")
	form.Set("title_de", "Eilig")
	if res, _ := r.form("/settings/taxonomy", form); res.StatusCode != 200 {
		t.Fatalf("edit: %d", res.StatusCode)
	}
	if e, _ := db.GetTaxonomy(ctx, "urgent"); e.Titles["de"] != "Eilig" {
		t.Fatalf("edit not kept: %+v", e)
	}
	// A bad code is refused.
	res, body = r.form("/settings/taxonomy", url.Values{"code": {"Bad Code"}, "kind": {"tag"}, "title_en": {"x"}})
	if res.StatusCode != 422 || !strings.Contains(body, `id="err-code"`) {
		t.Fatalf("bad code: %d", res.StatusCode)
	}
	// Retired: kept, marked, not offered for new tags.
	if res, _ := r.form("/settings/taxonomy/urgent/retire", nil); res.StatusCode != 200 {
		t.Fatalf("retire: %d", res.StatusCode)
	}
	if e, _ := db.GetTaxonomy(ctx, "urgent"); !e.Retired {
		t.Fatal("not retired")
	}
}

func TestAccountDeleteAndSecretsClear(t *testing.T) {
	r, _ := storeRig(t)
	sec := r.srv.cfg.Secrets
	if err := sec.Set("account:a1", "pw"); err != nil {
		t.Fatal(err)
	}
	if err := sec.Set("webhook-header", "Bearer x"); err != nil {
		t.Fatal(err)
	}
	// Clearing a secret from its form.
	res, body := r.form("/settings/webhooks", url.Values{"webhooks.method": {"POST"}, "webhooks.header_name": {"Authorization"}, "webhooks.header_value.clear": {"on"}})
	if res.StatusCode != 200 || sec.Has("webhook-header") {
		t.Fatalf("clear: %d %v", res.StatusCode, sec.Has("webhook-header"))
	}
	if strings.Contains(body, "Bearer x") {
		t.Fatal("secret shown")
	}
	res, _ = r.form("/settings/accounts/a1/delete", nil)
	if res.StatusCode != http.StatusNoContent {
		t.Fatalf("delete: %d", res.StatusCode)
	}
	if n := len(r.st.Get().Accounts); n != 0 || sec.Has("account:a1") {
		t.Fatalf("account or its password left: %d %v", n, sec.Has("account:a1"))
	}
}

// tracingPhone is a phone that keeps a SIP trace.
type tracingPhone struct{ *testPhone }

func (tracingPhone) SIPTrace() string { return "REGISTER sip:pbx.test SIP/2.0\r\n" }

func TestSIPTraceDownloadOnlyWhenOffered(t *testing.T) {
	r := newRig(t, nil)
	r.login()
	if res, _ := r.do("GET", "/diagnostics/sip-trace.txt", nil, nil); res.StatusCode != 404 {
		t.Fatalf("without a trace: %d", res.StatusCode)
	}
	if _, body := r.do("GET", "/settings", nil, nil); strings.Contains(body, "sip-trace.txt") {
		t.Fatal("download offered without a trace")
	}
	r2 := newRig(t, func(c *Config) { c.Phone = tracingPhone{&testPhone{}} })
	r2.login()
	res, body := r2.do("GET", "/diagnostics/sip-trace.txt", nil, nil)
	if res.StatusCode != 200 || !strings.Contains(body, "REGISTER") || !strings.Contains(res.Header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("trace: %d", res.StatusCode)
	}
	if _, body := r2.do("GET", "/settings", nil, nil); !strings.Contains(body, "sip-trace.txt") {
		t.Fatal("download not offered")
	}
}
