package web

import (
	"bytes"
	"fmt"
	"html"
	"mime/multipart"
	"path/filepath"
	"strings"
	"testing"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
	"github.com/softphone/softphone/views"
)

// TestImportSaysWhatWasNotSaved: importing a contacts file while the
// database cannot take them (its disk full) says how many were not
// imported, and why. Contacts the store refused were skipped in silence:
// the page said "n imported" for part of the file, or nothing at all when
// none was saved. A real SQLite database on a 256 KiB tmpfs in a private
// mount namespace (as TestWelcomeFullDisk): the test runs itself again
// there, under unshare -m.
func TestImportSaysWhatWasNotSaved(t *testing.T) {
	dir, inside := testpeer.OnSmallTmpfs(t, "256k")
	if !inside {
		return
	}
	db, err := store.OpenDB(filepath.Join(dir, "softphone.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	r := newRig(t, func(c *Config) { c.DB = db })
	r.login()

	testpeer.FillDisk(t, dir)
	const total = 3000
	var csv strings.Builder
	csv.WriteString("name,number\n")
	for i := range total {
		fmt.Fprintf(&csv, "Contact %d with a name long enough to fill pages,+4930%07d\n", i, i)
	}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile("file", "c.csv")
	fw.Write([]byte(csv.String()))
	mw.WriteField("csrf", r.csrf)
	mw.Close()
	res, body := r.do("POST", "/contacts/import", &buf, map[string]string{"Content-Type": mw.FormDataContentType(), "Origin": r.origin})
	list, err := db.ListContacts(t.Context(), "")
	if err != nil && !store.IsDiskFull(err) {
		t.Fatal(err)
	}
	saved := len(list)
	if saved == total {
		t.Fatal("the full disk took every contact: the test proves nothing")
	}
	want := views.L("en").F("import.notsaved.disk", total-saved, total)
	if res.StatusCode != 503 || !strings.Contains(html.UnescapeString(body), want) {
		t.Fatalf("%d of %d saved: %d, want %q in\n%s", saved, total, res.StatusCode, want, body)
	}
	t.Logf("%d of %d contacts saved on the full disk", saved, total)
}
