package store

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// searchState reads how many entries wait for the search index and checks
// the index (FTS5's integrity-check); when none waits, also against the
// table (with rank 1: every entry indexed with the values it has).
func searchState(t *testing.T, db *DB) (pending int) {
	t.Helper()
	if err := db.g.Raw("SELECT COUNT(*) FROM history_search_pending").Scan(&pending).Error; err != nil {
		t.Fatal(err)
	}
	check := "INSERT INTO history_search (history_search) VALUES ('integrity-check')"
	if pending == 0 {
		check = "INSERT INTO history_search (history_search, rank) VALUES ('integrity-check', 1)"
	}
	if err := db.g.Exec(check).Error; err != nil {
		t.Fatalf("search index integrity (%d waiting): %v", pending, err)
	}
	return pending
}

func indexed(t *testing.T, db *DB, phrase string) int {
	t.Helper()
	var n int
	if err := db.g.Raw("SELECT COUNT(*) FROM history_search WHERE history_search MATCH ?", `"`+phrase+`"`).Scan(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

func searchIDs(t *testing.T, db *DB, text string) []string {
	t.Helper()
	got, err := db.ListHistory(context.Background(), HistoryFilter{Text: text})
	if err != nil {
		t.Fatalf("%q: %v", text, err)
	}
	var ids []string
	for _, e := range got {
		ids = append(ids, e.CallID)
	}
	slices.Sort(ids)
	return ids
}

// The writes of a call only note the entry for the search index (0021);
// IndexHistorySearch indexes what is noted in one go, and a search indexes
// first, so it finds every entry at any moment. Renames and deletes keep
// the index equal to the table whether the entry was indexed yet or not.
func TestHistorySearchIndexedInBatches(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	for i, e := range []HistoryEntry{
		{CallID: "c1", Number: "+49 30 1234", Name: "Ada Lovelace", URI: "sip:ada@pbx.example"},
		{CallID: "c2", Number: "200", URI: "sip:200@pbx.example"},
		{CallID: "c3", Number: "300", URI: "sip:300@other.example"},
	} {
		e.StartedAt = t0.Add(time.Duration(i) * time.Minute)
		if err := db.StartHistory(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	if p := searchState(t, db); p != 3 || indexed(t, db, "example") != 0 {
		t.Fatalf("after three starts: %d noted, %d indexed; want 3 noted, none indexed", p, indexed(t, db, "example"))
	}
	if n, err := db.IndexHistorySearch(ctx); err != nil || n != 3 {
		t.Fatalf("IndexHistorySearch = %d, %v; want 3", n, err)
	}
	if p := searchState(t, db); p != 0 || indexed(t, db, "example") != 3 {
		t.Fatalf("after indexing: %d noted, %d indexed; want 0 and 3", p, indexed(t, db, "example"))
	}
	if n, err := db.IndexHistorySearch(ctx); err != nil || n != 0 {
		t.Fatalf("IndexHistorySearch again = %d, %v; want 0", n, err)
	}

	// An indexed entry renamed at its end leaves the index with its old
	// values and waits; a search indexes it first.
	if err := db.FinishHistory(ctx, HistoryEntry{CallID: "c3", Name: "Carol Jones", URI: "sip:carol@else.example", Outcome: "answered"}); err != nil {
		t.Fatal(err)
	}
	if p := searchState(t, db); p != 1 || indexed(t, db, "other.example") != 0 {
		t.Fatalf("after the rename: %d noted, old uri indexed %d times; want 1 and 0", p, indexed(t, db, "other.example"))
	}
	if ids := searchIDs(t, db, "carol"); !slices.Equal(ids, []string{"c3"}) {
		t.Fatalf("search carol = %v", ids)
	}
	if ids := searchIDs(t, db, "other.example"); ids != nil {
		t.Fatalf("search of the old uri = %v", ids)
	}
	if p := searchState(t, db); p != 0 {
		t.Fatalf("after a search: %d noted, want 0", p)
	}
	// An end that changes nothing of number, name, uri notes nothing.
	if err := db.FinishHistory(ctx, HistoryEntry{CallID: "c2", Outcome: "missed"}); err != nil {
		t.Fatal(err)
	}
	if p := searchState(t, db); p != 0 {
		t.Fatalf("an end without a rename noted %d", p)
	}

	// Renamed twice while waiting: indexed once, with what it has then.
	if err := db.StartHistory(ctx, HistoryEntry{CallID: "c4", Number: "400", Name: "Dora", StartedAt: t0.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if err := db.FinishHistory(ctx, HistoryEntry{CallID: "c4", Name: "Dora Maar", Outcome: "answered"}); err != nil {
		t.Fatal(err)
	}
	if p := searchState(t, db); p != 1 {
		t.Fatalf("a new entry renamed before indexing: %d noted, want 1", p)
	}
	if ids := searchIDs(t, db, "maar"); !slices.Equal(ids, []string{"c4"}) {
		t.Fatalf("search maar = %v", ids)
	}

	// Deletes (by hand: the phone deletes no history) of an indexed entry
	// and of one still waiting.
	if err := db.StartHistory(ctx, HistoryEntry{CallID: "c5", Number: "500", Name: "Eve Waiting"}); err != nil {
		t.Fatal(err)
	}
	if err := db.g.Exec("DELETE FROM history WHERE call_id IN ('c1', 'c5')").Error; err != nil {
		t.Fatal(err)
	}
	if p := searchState(t, db); p != 0 {
		t.Fatalf("after the deletes: %d noted, want 0", p)
	}
	if ids := searchIDs(t, db, "lovelace"); ids != nil {
		t.Fatalf("deleted entry found: %v", ids)
	}
	if ids := searchIDs(t, db, "example"); !slices.Equal(ids, []string{"c2", "c3"}) {
		t.Fatalf("search example = %v", ids)
	}
}

// When indexing did not happen (it failed, a full disk), a search still
// finds the entries that wait, by LIKE.
func TestHistorySearchFindsWhatWaits(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	if err := db.StartHistory(ctx, HistoryEntry{CallID: "w1", Number: "+49 89 5555", Name: "Waiting Walter"}); err != nil {
		t.Fatal(err)
	}
	db.searchNoted.maybe.Store(false) // as after a failed IndexHistorySearch that is not tried again yet
	if ids := searchIDs(t, db, "walter"); !slices.Equal(ids, []string{"w1"}) {
		t.Fatalf("search walter = %v", ids)
	}
	if p := searchState(t, db); p != 1 {
		t.Fatalf("%d noted, want 1 (not indexed)", p)
	}
}

// A database from before 0021 keeps its search index: its entries are found
// after the upgrade, and new ones are indexed in batches.
func TestMigrationHistorySearchPending(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "softphone.db")
	db := openBefore(t, path, "0021_history_search_pending")
	for _, id := range []string{"old1", "old2"} {
		e := HistoryEntry{CallID: id, Number: "+49 40 777" + id[3:], Name: "Old " + id, StartedAt: t0, Outcome: "answered"}
		writeOldHistory(t, db, e)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db, err := OpenDB(path)
	if err != nil {
		t.Fatalf("OpenDB with 0021: %v", err)
	}
	defer db.Close()
	if v, err := db.SchemaVersion(ctx); err != nil || v != schemaVersion {
		t.Fatalf("schema version = %d, %v; want %d", v, err, schemaVersion)
	}
	if p := searchState(t, db); p != 0 || indexed(t, db, "old") != 2 {
		t.Fatalf("after the upgrade: %d noted, %d indexed; want 0 and 2", p, indexed(t, db, "old"))
	}
	if err := db.StartHistory(ctx, HistoryEntry{CallID: "new1", Number: "+49 40 7773", Name: "New one"}); err != nil {
		t.Fatal(err)
	}
	if p := searchState(t, db); p != 1 {
		t.Fatalf("a new entry: %d noted, want 1", p)
	}
	if ids := searchIDs(t, db, "40 777"); !slices.Equal(ids, []string{"new1", "old1", "old2"}) {
		t.Fatalf("search 40 777 = %v", ids)
	}
	// An old entry renamed after the upgrade.
	if err := db.FinishHistory(ctx, HistoryEntry{CallID: "old1", Name: "Renamed", Outcome: "answered"}); err != nil {
		t.Fatal(err)
	}
	if ids := searchIDs(t, db, "old old"); !slices.Equal(ids, []string{"old2"}) {
		t.Fatalf("search 'old old' = %v", ids)
	}
	if p := searchState(t, db); p != 0 {
		t.Fatalf("%d noted after searching", p)
	}
}

// rev stamps what a page of GET /history shows: closed entries. The answer
// and the heartbeat of an open entry leave it (and so the page indexes)
// alone; the end, an edit of a closed entry and a close by recovery stamp
// it anew.
func TestHistoryRevOnlyForClosedEntries(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	rev := func(callID string) int64 {
		t.Helper()
		var r int64
		if err := db.g.Raw("SELECT rev FROM history WHERE call_id = ?", callID).Scan(&r).Error; err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, id := range []string{"r1", "r2"} {
		if err := db.StartHistory(ctx, HistoryEntry{CallID: id, Number: "100", StartedAt: t0}); err != nil {
			t.Fatal(err)
		}
	}
	r0 := rev("r1")
	if err := db.AnswerHistory(ctx, "r1", t0.Add(time.Second), "no"); err != nil {
		t.Fatal(err)
	}
	if err := db.HistoryAlive(ctx, []string{"r1", "r2"}, t0.Add(2*time.Second)); err != nil {
		t.Fatal(err)
	}
	if r := rev("r1"); r != r0 {
		t.Fatalf("rev of an open entry changed by the answer or the heartbeat: %d -> %d", r0, r)
	}
	if e, err := db.HistoryByCall(ctx, "r1"); err != nil || !e.Answered || e.AnsweredBy != "no" || !e.Open {
		t.Fatalf("after the answer: %+v, %v", e, err)
	}
	if err := db.FinishHistory(ctx, HistoryEntry{CallID: "r1", Outcome: "answered", Answered: true, AnsweredAt: t0.Add(time.Second)}); err != nil {
		t.Fatal(err)
	}
	r1 := rev("r1")
	if r1 == r0 {
		t.Fatal("the end did not stamp rev")
	}
	e, err := db.HistoryByCall(ctx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SetHistoryNote(ctx, e.ID, "called back"); err != nil {
		t.Fatal(err)
	}
	if r := rev("r1"); r == r1 {
		t.Fatal("a note on a closed entry did not stamp rev")
	}
	r2 := rev("r2")
	if n, err := db.CloseOpenHistory(ctx, "interrupted", t0.Add(time.Minute)); err != nil || n != 1 {
		t.Fatalf("CloseOpenHistory = %d, %v", n, err)
	}
	if r := rev("r2"); r == r2 {
		t.Fatal("closing an open entry did not stamp rev")
	}
}

// Entries a stop (or a crash) left noted are indexed after the next open,
// at the first IndexHistorySearch, without a search first.
func TestHistorySearchNotedAcrossOpen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "softphone.db")
	db, err := OpenDB(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.StartHistory(ctx, HistoryEntry{CallID: "left", Number: "+49 511 4242", Name: "Left Noted"}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = OpenDB(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if p := searchState(t, db); p != 1 {
		t.Fatalf("after reopening: %d noted, want 1", p)
	}
	if n, err := db.IndexHistorySearch(ctx); err != nil || n != 1 {
		t.Fatalf("IndexHistorySearch after reopening = %d, %v; want 1", n, err)
	}
	if p := searchState(t, db); p != 0 || indexed(t, db, "noted") != 1 {
		t.Fatalf("after indexing: %d noted, %d indexed", p, indexed(t, db, "noted"))
	}
}
