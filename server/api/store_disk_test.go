package api

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// TestStoreFullDiskSaysSo: a contact the database refuses for its full disk
// (POST /contacts) is answered 500 "the disk is full: the change was not
// saved; ..." instead of "internal error", which told a client neither the
// cause nor what to do; once there is room the same request is saved. The
// database is on a 1 MiB tmpfs in a private mount namespace (as
// TestSettingsFullDiskSaysSo): the test runs itself again there, under
// unshare -m. SQLite writes into its WAL's room until that is used up, so
// contacts are added until one is refused.
func TestStoreFullDiskSaysSo(t *testing.T) {
	dir, inside := testpeer.OnSmallTmpfs(t, "1m")
	if !inside {
		return
	}
	var db *store.DB
	e := newEnvCfg(t, func(c *Config) {
		var err error
		if db, err = store.OpenDB(filepath.Join(dir, "softphone.db")); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
		c.DB = db
	})
	e.db = db
	e.setToken()
	filler := testpeer.FillDisk(t, dir)
	var r resp
	for i := 0; ; i++ {
		if i == 10_000 {
			t.Fatal("10,000 contacts saved on a full disk")
		}
		r = e.post("/contacts", fmt.Sprintf(`{"name":"Contact %d %s","number":"+49301234%04d"}`, i, strings.Repeat("x", 500), i), bearer(token))
		if r.status != 201 {
			break
		}
	}
	if r.status != 500 || !strings.Contains(string(r.body), msgDiskFull) {
		t.Fatalf("a contact on the full disk: %d %s", r.status, r.body)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if r := e.post("/contacts", `{"name":"After","number":"+4930999"}`, bearer(token)); r.status != 201 {
		t.Fatalf("with room again: %d %s", r.status, r.body)
	}
}
