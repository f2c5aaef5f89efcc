package web

import (
	"bytes"
	"html"
	"mime/multipart"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/store"
	"github.com/softphone/softphone/views"
)

// TestRefusalsInThePagesLanguage: tags and a note for a history entry that
// is gone, a tag that does not exist, retiring or changing a code that does
// not exist, a new code already in use, changing a contact that is gone,
// and a contacts file the readers refuse (a vCard line over 1 MiB, a broken
// CSV, a file without numbers) are answered in words of the page's
// language. The store's and the readers' errors were shown as they were,
// English and technical, on German pages too ("tags of history entry
// "gone": not found", "read vCard: bufio.Scanner: token too long"). A real
// SQLite store.
func TestRefusalsInThePagesLanguage(t *testing.T) {
	r, db := dbRig(t)
	if err := db.StartHistory(t.Context(), store.HistoryEntry{ID: "h1", CallID: "call-1", Direction: "out", Number: "+4930555", StartedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	upload := func(name, text string) (int, string) {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		fw, _ := mw.CreateFormFile("file", name)
		fw.Write([]byte(text))
		mw.WriteField("csrf", r.csrf)
		mw.Close()
		res, body := r.do("POST", "/contacts/import", &buf, map[string]string{"Content-Type": mw.FormDataContentType(), "Origin": r.origin})
		return res.StatusCode, body
	}
	if err := db.CreateTaxonomy(t.Context(), store.TaxonomyEntry{Code: "dup", Kind: "tag", Titles: map[string]string{"en": "Dup"}}); err != nil {
		t.Fatal(err)
	}
	longLine := "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Carol\r\nTEL:+4930555\r\nNOTE:" + strings.Repeat("x", 3<<19) + "\r\nEND:VCARD\r\n"
	for _, lang := range []string{"en", "de"} {
		if _, err := r.st.Update(func(s *store.Settings) error { s.Appearance.Language = lang; return nil }); err != nil {
			t.Fatal(err)
		}
		l := views.L(lang)
		for _, c := range []struct {
			what, path string
			form       url.Values
			want       string
		}{
			{"tags of a gone entry", "/history/gone/tags", url.Values{"tags": {"x"}}, l.T("history.gone")},
			{"note of a gone entry", "/history/gone/note", url.Values{"note": {"hi"}}, l.T("history.gone")},
			{"an unknown tag", "/history/h1/tags", url.Values{"tags": {"no-such-tag"}}, l.T("store.unknowncode")},
			{"retiring an unknown code", "/settings/taxonomy/no-such-code/retire", url.Values{}, l.T("taxonomy.gone")},
			{"changing an unknown code", "/settings/taxonomy", url.Values{"edit": {"1"}, "code": {"no-such-code"}, "kind": {"tag"}, "title_en": {"T"}}, l.T("taxonomy.gone")},
			{"a new entry with a code in use", "/settings/taxonomy", url.Values{"code": {"dup"}, "kind": {"tag"}, "title_en": {"T"}}, l.T("store.exists")},
			{"changing a contact that is gone", "/contacts/gone", url.Values{"name": {"Carol"}, "number": {"+4930555"}}, l.T("contact.gone")},
		} {
			res, body := r.form(c.path, c.form)
			body = html.UnescapeString(body)
			if res.StatusCode >= 500 || res.StatusCode < 400 || !strings.Contains(body, c.want) || rawStoreError(body) {
				t.Errorf("%s, %s: %d %q, want %q", lang, c.what, res.StatusCode, body, c.want)
			}
		}
		for _, c := range []struct{ what, name, text, want string }{
			{"a vCard line over 1 MiB", "c.vcf", longLine, l.F("import.toolong", 1)},
			{"a broken CSV", "c.csv", "name,number\n\"Carol,+4930555\nDave\"x,+4930556\n", l.F("import.csvline", 3)},
			{"a file without numbers", "c.csv", "name,number\nCarol,\n", l.T("import.nocontacts")},
		} {
			status, body := upload(c.name, c.text)
			body = html.UnescapeString(body)
			if status != 422 || !strings.Contains(body, c.want) || strings.Contains(body, "bufio") || strings.Contains(body, "parse error") {
				t.Errorf("%s, %s: %d, want %q in %.300q", lang, c.what, status, c.want, body)
			}
		}
	}
	if list, _ := db.ListContacts(t.Context(), ""); len(list) != 0 {
		t.Errorf("%d contacts imported from refused files", len(list))
	}
}

// rawStoreError: body holds a store error as the store words it (English,
// or half German through views.StoreMsg's phrases).
func rawStoreError(body string) bool {
	for _, raw := range []string{"not found", "nicht gefunden", "already exists", "gibt es schon", "unknown or retired", "stillgelegter Code"} {
		if strings.Contains(body, raw) {
			return true
		}
	}
	return false
}
