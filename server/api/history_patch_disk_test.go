package api

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// TestHistoryPatchAllOrNothingOnAFullDisk: PATCH /history/{id} with tags and
// a note that the full disk has room for only in part is refused 500 (the
// disk is full) and keeps nothing. The tags and the note were two writes:
// the tags (a few pages) were saved, the note (4000 bytes, the most a
// note may have) refused, and the client, told nothing was saved, had the
// entry's tags replaced. The database is on a 1 MiB tmpfs in a private
// mount namespace; the disk is filled, then 18 KiB given back: room for
// the tags' pages in the WAL, not for the note's too (measured: the tags
// alone are saved with 16 to 20 KiB, tags and note need 24).
func TestHistoryPatchAllOrNothingOnAFullDisk(t *testing.T) {
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
	s := e.seed()
	e.setToken()
	id := s.history[len(s.history)-1].ID // tagged sales, cancellation
	var before map[string]any
	e.get("/history/"+id).json(t, &before)

	filler := testpeer.FillDisk(t, dir)
	fi, err := os.Stat(filler)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(filler, fi.Size()-18<<10); err != nil {
		t.Fatal(err)
	}
	body := `{"tags":["support"],"note":"` + strings.Repeat("n", store.NoteMax) + `"}`
	r := do(t, "PATCH", e.base+"/history/"+id, body, bearer(token))
	if r.status != 500 || !strings.Contains(string(r.body), msgDiskFull) {
		t.Fatalf("the patch on the full disk: %d %s", r.status, r.body)
	}
	var after map[string]any
	e.get("/history/"+id).json(t, &after)
	if !slices.Equal(tagsOf(after), tagsOf(before)) || after["note"] != before["note"] {
		t.Errorf("the refused patch kept part of itself: tags %v note %d bytes, before tags %v",
			after["tags"], len(after["note"].(string)), before["tags"])
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if r := do(t, "PATCH", e.base+"/history/"+id, body, bearer(token)); r.status != 200 {
		t.Fatalf("with room again: %d %s", r.status, r.body)
	}
	e.get("/history/"+id).json(t, &after)
	if !slices.Equal(tagsOf(after), []string{"support"}) || len(after["note"].(string)) != store.NoteMax {
		t.Errorf("with room again: tags %v, note %d bytes", after["tags"], len(after["note"].(string)))
	}
}

func tagsOf(h map[string]any) []string {
	var out []string
	for _, v := range h["tags"].([]any) {
		out = append(out, v.(string))
	}
	slices.Sort(out)
	return out
}
