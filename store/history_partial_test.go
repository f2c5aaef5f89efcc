package store

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// A database from before 0022 (indexes of every entry for the missed and
// the declined walks) gives the same pages after the upgrade to partial
// indexes, and entries written after it land in the right ones: a missed
// call in the missed page, a declined one in the declined page, an answered
// one in neither, a call in progress in none.
func TestMigrationHistoryPartialIndexes(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "softphone.db")
	db := openBefore(t, path, "0022_history_partial_indexes")
	write := func(db *DB, id, outcome string, declined bool, at int) {
		t.Helper()
		e := HistoryEntry{CallID: id, Number: "+49 40 1", StartedAt: t0.Add(time.Duration(at) * time.Minute)}
		if strings.HasPrefix(id, "old-") {
			e.Outcome, e.Declined, e.EndedAt = outcome, declined, e.StartedAt
			writeOldHistory(t, db, e)
			return
		}
		if err := db.StartHistory(ctx, e); err != nil {
			t.Fatal(err)
		}
		if outcome == "" {
			return // in progress
		}
		e.Outcome, e.Declined = outcome, declined
		if err := db.FinishHistory(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	write(db, "old-missed", "missed", false, 1)
	write(db, "old-answered", "answered", false, 2)
	write(db, "old-declined", "declined", true, 3)
	write(db, "old-open", "", false, 4)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db, err := OpenDB(path)
	if err != nil {
		t.Fatalf("OpenDB with 0022: %v", err)
	}
	defer db.Close()
	if v, err := db.SchemaVersion(ctx); err != nil || v != schemaVersion {
		t.Fatalf("schema version = %d, %v; want %d", v, err, schemaVersion)
	}
	write(db, "new-missed", "missed", false, 5)
	write(db, "new-answered", "answered", false, 6)
	write(db, "new-declined", "declined", true, 7)
	write(db, "new-open", "", false, 8)
	// A call declined by this phone whose outcome is missed too: both walks.
	write(db, "new-both", "missed", true, 9)

	page := func(f HistoryFilter) []string { return pageCalls(t, db, f) }
	for _, c := range []struct {
		f    HistoryFilter
		want []string
	}{
		{HistoryFilter{}, []string{"new-both", "new-declined", "new-answered", "new-missed", "old-declined", "old-answered", "old-missed"}},
		{HistoryFilter{Missed: true}, []string{"new-both", "new-missed", "old-missed"}},
		{HistoryFilter{Declined: true}, []string{"new-both", "new-declined", "old-declined"}},
		{HistoryFilter{Missed: true, Declined: true}, []string{"new-both", "new-declined", "new-missed", "old-declined", "old-missed"}},
	} {
		if got := page(c.f); !slices.Equal(got, c.want) {
			t.Errorf("page %+v = %v, want %v", c.f, got, c.want)
		}
	}
	// The indexes are partial: they hold only their entries.
	for idx, where := range map[string]string{"history_page_missed": "WHERE outcome = 'missed'",
		"history_page_declined": "WHERE declined = 1", "history_page_outcome": ""} {
		var sql string
		err := db.rd.QueryRow("SELECT coalesce((SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?), '')", idx).Scan(&sql)
		if err != nil {
			t.Fatal(err)
		}
		if where == "" && sql != "" || where != "" && !strings.HasSuffix(sql, where) {
			t.Errorf("index %s: %q", idx, sql)
		}
	}
}
