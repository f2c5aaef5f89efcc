package web

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"mime/multipart"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/softphone/softphone/store"
	"github.com/softphone/softphone/views"
)

// importDiskDir names, in the child process of
// TestImportSaysWhatWasNotSaved, the small tmpfs its database is on.
const importDiskDir = "SOFTPHONE_TEST_TMPFS_WEB_IMPORT"

// TestImportSaysWhatWasNotSaved: importing a contacts file while the
// database cannot take them (its disk full) says how many were not
// imported, and why. Contacts the store refused were skipped in silence:
// the page said "n imported" for part of the file, or nothing at all when
// none was saved. A real SQLite database on a 256 KiB tmpfs in a private
// mount namespace (as TestWelcomeFullDisk): the test runs itself again
// there, under unshare -m.
func TestImportSaysWhatWasNotSaved(t *testing.T) {
	dir := os.Getenv(importDiskDir)
	if dir == "" {
		if os.Geteuid() != 0 {
			t.Skip("needs root for unshare -m and mount")
		}
		if _, err := exec.LookPath("unshare"); err != nil {
			t.Skip("no unshare")
		}
		dir := t.TempDir()
		script := `mount -t tmpfs -o size=256k,mode=0700 tmpfs "$1" && exec "$2" -test.run '^TestImportSaysWhatWasNotSaved$' -test.count=1 -test.v`
		cmd := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", dir, os.Args[0])
		cmd.Env = append(os.Environ(), importDiskDir+"="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestImportSaysWhatWasNotSaved") {
			t.Fatalf("with the tmpfs: %v\n%s", err, out)
		}
		t.Logf("with the tmpfs:\n%s", out)
		return
	}
	var fs syscall.Statfs_t
	if err := syscall.Statfs(dir, &fs); err != nil || fs.Type != 0x01021994 { // TMPFS_MAGIC
		t.Fatalf("%s is not the tmpfs: %v", dir, err)
	}
	db, err := store.OpenDB(filepath.Join(dir, "softphone.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	r := newRig(t, func(c *Config) { c.DB = db })
	r.login()

	filler := filepath.Join(dir, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	for err == nil {
		_, err = f.Write(make([]byte, 4096))
	}
	f.Close()
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("filling the tmpfs: %v", err)
	}
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
