package store

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestClockStepBackHistoryOrder: the wall clock steps back an hour (NTP
// correcting a clock that ran ahead, the person setting it) after calls
// were made. A call made after the step is listed first, in every list of
// the history (the pages' walks, the API's list, the missed and the
// declined), and counts as a missed call not yet seen though History was
// looked at "later" by the clock. Before, the new call was listed below the
// calls of the hour before the step (off the first page of a busy
// history), and the badge did not count it until the clock had caught up.
func TestClockStepBackHistoryOrder(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	call := func(id, outcome string, declined bool, start time.Time) {
		t.Helper()
		e := HistoryEntry{CallID: id, Direction: "in", Number: "+49 30 1", StartedAt: start}
		if err := db.StartHistory(ctx, e); err != nil {
			t.Fatal(err)
		}
		e.Outcome, e.Declined, e.EndedAt = outcome, declined, start.Add(30*time.Second)
		if err := db.FinishHistory(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	missed := func() int {
		t.Helper()
		n, err := db.MissedSinceSeen(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	ahead := t0.Add(time.Hour) // the clock ran an hour ahead
	call("before-1", "missed", true, ahead)
	call("before-2", "missed", true, ahead.Add(10*time.Minute))
	if err := db.MarkHistorySeen(ctx, ahead.Add(20*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if n := missed(); n != 0 {
		t.Fatalf("missed after seen = %d", n)
	}
	// The clock steps back to t0: a call missed now.
	call("after", "missed", true, t0.Add(5*time.Minute))
	if n := missed(); n != 1 {
		t.Errorf("a call missed after the clock stepped back counts %d, want 1", n)
	}
	for _, f := range []HistoryFilter{{}, {Missed: true}, {Declined: true}, {Missed: true, Declined: true}} {
		list, err := db.ListHistory(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, e := range list {
			ids = append(ids, e.CallID)
		}
		if want := []string{"after", "before-2", "before-1"}; !slices.Equal(ids, want) {
			t.Errorf("ListHistory %+v = %v, want %v", f, ids, want)
		}
		if got := pageCalls(t, db, f); !slices.Equal(got, []string{"after", "before-2", "before-1"}) {
			t.Errorf("HistoryPage %+v = %v, want the call after the step first", f, got)
		}
	}
	// Looked at after the step while a call rings: seen; that call, missed
	// after the look, counts, as does a call missed after that.
	ringing := HistoryEntry{CallID: "ringing", Direction: "in", StartedAt: t0.Add(9 * time.Minute)}
	if err := db.StartHistory(ctx, ringing); err != nil {
		t.Fatal(err)
	}
	if err := db.MarkHistorySeen(ctx, t0.Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if n := missed(); n != 0 {
		t.Errorf("missed after seen again = %d, want 0", n)
	}
	ringing.Outcome, ringing.EndedAt = "missed", t0.Add(11*time.Minute)
	if err := db.FinishHistory(ctx, ringing); err != nil {
		t.Fatal(err)
	}
	if n := missed(); n != 1 {
		t.Errorf("a call ringing during the look after the step and missed after it counts %d, want 1", n)
	}
	if err := db.MarkHistorySeen(ctx, t0.Add(12*time.Minute)); err != nil {
		t.Fatal(err)
	}
	call("later", "missed", false, t0.Add(20*time.Minute))
	if n := missed(); n != 1 {
		t.Errorf("a call missed after the second look counts %d, want 1", n)
	}
	if got := pageCalls(t, db, HistoryFilter{}); len(got) == 0 || got[0] != "later" {
		t.Errorf("page %v, want the newest call first", got)
	}
}

// pageCalls is the call ids of a page of GET /history, in its order.
func pageCalls(t *testing.T, db *DB, f HistoryFilter) []string {
	t.Helper()
	ctx := context.Background()
	refs, err := db.HistoryPage(ctx, f, nil)
	if err != nil {
		t.Fatal(err)
	}
	var rows []int64
	for _, r := range refs {
		rows = append(rows, r.Row)
	}
	got, err := db.HistoryRows(ctx, rows)
	if err != nil {
		t.Fatal(err)
	}
	byRow := map[int64]string{}
	for _, r := range got {
		byRow[r.Row] = r.Entry.CallID
	}
	var ids []string
	for _, r := range rows {
		ids = append(ids, byRow[r])
	}
	return ids
}

// TestMigrationHistoryOrder: a database from before 0023 keeps its order
// (by start) and its missed calls not yet seen; entries written after the
// upgrade come first, and count as not seen whatever the clock.
func TestMigrationHistoryOrder(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "softphone.db")
	db := openBefore(t, path, "0023_history_order")
	for i, id := range []string{"old-3", "old-1", "old-2"} { // written out of start order
		start := t0.Add(time.Duration([]int{3, 1, 2}[i]) * time.Minute)
		writeOldHistory(t, db, HistoryEntry{CallID: id, Outcome: "missed", StartedAt: start, EndedAt: start.Add(time.Second)})
	}
	// Seen between the second and the third call's end.
	if err := db.g.Exec("UPDATE history_seen SET at = ? WHERE id = 1", ts(t0.Add(150*time.Second))).Error; err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := OpenDB(path)
	if err != nil {
		t.Fatalf("OpenDB with 0023: %v", err)
	}
	defer db.Close()
	if got := pageCalls(t, db, HistoryFilter{}); !slices.Equal(got, []string{"old-3", "old-2", "old-1"}) {
		t.Fatalf("page after the upgrade %v", got)
	}
	if n, err := db.MissedSinceSeen(ctx); err != nil || n != 1 {
		t.Fatalf("missed after the upgrade = %d, %v; want 1", n, err)
	}
	e := HistoryEntry{CallID: "new", StartedAt: t0} // the clock stepped back since
	if err := db.StartHistory(ctx, e); err != nil {
		t.Fatal(err)
	}
	e.Outcome, e.EndedAt = "missed", t0.Add(time.Second)
	if err := db.FinishHistory(ctx, e); err != nil {
		t.Fatal(err)
	}
	if got := pageCalls(t, db, HistoryFilter{Missed: true}); !slices.Equal(got, []string{"new", "old-3", "old-2", "old-1"}) {
		t.Fatalf("missed page %v", got)
	}
	if n, err := db.MissedSinceSeen(ctx); err != nil || n != 2 {
		t.Fatalf("missed = %d, %v; want 2", n, err)
	}
}

// TestNextSeqIsASearch: numbering a new entry reads the last entry of an
// index (every call's start does it), not the table.
func TestNextSeqIsASearch(t *testing.T) {
	db := openTestDB(t)
	fillHistory(t, db, 2000)
	var id, parent, unused int
	var detail string
	if err := db.rd.QueryRow("EXPLAIN QUERY PLAN "+nextSeq[1:len(nextSeq)-1]).Scan(&id, &parent, &unused, &detail); err != nil {
		t.Fatal(err)
	}
	if detail != "SEARCH history USING COVERING INDEX history_page" {
		t.Errorf("plan %q", detail)
	}
}

// TestClockStepBackRecordingsOrder: a recording made after the wall clock
// stepped back an hour is listed first, not below the recordings of the
// hour before the step.
func TestClockStepBackRecordingsOrder(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	var ids []string
	for _, at := range []time.Time{t0.Add(time.Hour), t0.Add(70 * time.Minute), t0.Add(5 * time.Minute)} {
		r, err := db.CreateRecording(ctx, Recording{CallID: "c", StartedAt: at, Path: "recordings/x.wav"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append([]string{r.ID}, ids...)
	}
	list, err := db.ListRecordings(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range list {
		got = append(got, r.ID)
	}
	if !slices.Equal(got, ids) {
		t.Errorf("recordings %v, want the last made first %v", got, ids)
	}
}
