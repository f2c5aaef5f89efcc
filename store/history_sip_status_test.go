package store

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// A database made by the program before migration 0016 keeps its history
// when 0016 adds sip_status: old entries read as 0 (unknown), new ones keep
// the status written (issue 16 item 3).
func TestMigrationHistorySIPStatus(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "softphone.db")
	db := openBefore(t, path, "0016_history_sip_status")
	var cols []string
	if err := db.g.Raw("SELECT name FROM pragma_table_info('history')").Scan(&cols).Error; err != nil || slices.Contains(cols, "sip_status") {
		t.Fatalf("before 0016: columns %v, %v", cols, err)
	}
	at := time.Now().Add(-time.Hour)
	if err := db.g.Exec(`INSERT INTO history (id, call_id, direction, number, outcome, reason, started_at, ended_at)
		VALUES ('old', 'call-old', 'out', '404', 'failed', 'failed', ?, ?)`, ts(at), ts(at)).Error; err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db, err := OpenDB(path)
	if err != nil {
		t.Fatalf("OpenDB with 0016: %v", err)
	}
	defer db.Close()
	if v, err := db.SchemaVersion(ctx); err != nil || v != schemaVersion {
		t.Fatalf("schema version = %d, %v; want %d", v, err, schemaVersion)
	}
	old, err := db.GetHistory(ctx, "old")
	if err != nil || old.SIPStatus != 0 || old.Number != "404" || old.Outcome != "failed" {
		t.Fatalf("old entry after 0016 = %+v, %v", old, err)
	}
	if err := db.StartHistory(ctx, HistoryEntry{CallID: "call-new", Direction: "out", Number: "999"}); err != nil {
		t.Fatal(err)
	}
	if err := db.FinishHistory(ctx, HistoryEntry{CallID: "call-new", Outcome: "failed", Reason: "failed", SIPStatus: 404}); err != nil {
		t.Fatal(err)
	}
	list, err := db.ListHistory(ctx, HistoryFilter{})
	if err != nil || len(list) != 2 || list[0].CallID != "call-new" || list[0].SIPStatus != 404 || list[1].SIPStatus != 0 {
		t.Fatalf("ListHistory = %+v, %v; want the new entry with 404, the old with 0", list, err)
	}
	if e, err := db.HistoryByCall(ctx, "call-new"); err != nil || e.SIPStatus != 404 {
		t.Fatalf("HistoryByCall = %+v, %v", e, err)
	}
}

// Missed calls count until the history is seen; a call missed after that
// counts again.
func TestMissedSinceSeen(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	count := func() int {
		n, err := db.MissedSinceSeen(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	t0 := time.Now().Add(-time.Minute)
	for i, o := range []string{"missed", "answered", "missed", "failed"} {
		e := HistoryEntry{CallID: "c" + string(rune('0'+i)), Direction: "in", StartedAt: t0.Add(time.Duration(i) * time.Second)}
		if err := db.StartHistory(ctx, e); err != nil {
			t.Fatal(err)
		}
		e.Outcome = o
		if err := db.FinishHistory(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	if n := count(); n != 2 {
		t.Fatalf("missed before seen = %d, want 2", n)
	}
	if err := db.MarkHistorySeen(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 0 {
		t.Fatalf("missed after seen = %d, want 0", n)
	}
	if err := db.MarkHistorySeen(ctx, t0); err != nil { // an older moment changes nothing
		t.Fatal(err)
	}
	if n := count(); n != 0 {
		t.Fatalf("missed after an older seen = %d, want 0", n)
	}
	// A call that rang while History was looked at and was missed after.
	e := HistoryEntry{CallID: "late", Direction: "in", StartedAt: time.Now().Add(-time.Second)}
	if err := db.StartHistory(ctx, e); err != nil {
		t.Fatal(err)
	}
	e.Outcome = "missed"
	if err := db.FinishHistory(ctx, e); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 1 {
		t.Fatalf("a call missed after seen = %d, want 1", n)
	}
}
