package store

import (
	"context"
	"runtime"
	"strconv"
	"testing"
	"time"
	"unsafe"

	sqlite3 "modernc.org/sqlite/lib"
)

// hotCacheUsed is what the writer connection's page cache holds now
// (sqlite3_db_status SQLITE_DBSTATUS_CACHE_USED), in bytes.
func hotCacheUsed(t *testing.T, db *DB) int {
	t.Helper()
	sdb, err := db.raw()
	if err != nil {
		t.Fatal(err)
	}
	cur, hi := new(int32), new(int32) // on the heap: SQLite writes through their addresses
	var rc int32
	if err := db.hot.with(context.Background(), sdb, func(c hotConn) {
		rc = sqlite3.Xsqlite3_db_status(c.rc.tls, c.rc.db, sqlite3.SQLITE_DBSTATUS_CACHE_USED,
			uintptr(unsafe.Pointer(cur)), uintptr(unsafe.Pointer(hi)), 0)
	}); err != nil {
		t.Fatal(err)
	}
	runtime.KeepAlive(cur)
	runtime.KeepAlive(hi)
	if rc != sqlite3.SQLITE_OK {
		t.Fatalf("sqlite3_db_status: %d", rc)
	}
	return int(*cur)
}

// TestReleaseMemory: after a few hundred calls' history writes the
// writer's page cache holds their pages; ReleaseMemory gives them back,
// and the history is written and read as before.
func TestReleaseMemory(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	db.ReleaseMemory(ctx) // nothing open yet: nothing to do, nothing opened
	if db.hot.conn != nil {
		t.Fatal("ReleaseMemory opened the writer connection")
	}
	t0 := time.Now()
	write := func(from, to int) {
		for i := from; i < to; i++ {
			id := "mem-" + strconv.Itoa(i)
			e := HistoryEntry{CallID: id, AccountID: "acc", Account: "alice", Direction: "in",
				Number: "+4930" + strconv.Itoa(1000000+i), URI: "sip:" + strconv.Itoa(i) + "@pbx", StartedAt: t0}
			if err := db.StartHistory(ctx, e); err != nil {
				t.Fatal(err)
			}
			e.Outcome, e.Answered, e.AnsweredAt, e.EndedAt, e.DurationS = "answered", true, t0, t0.Add(time.Second), 1
			if err := db.FinishHistory(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
	}
	write(0, 400)
	full := hotCacheUsed(t, db)
	db.ReleaseMemory(ctx)
	after := hotCacheUsed(t, db)
	t.Logf("writer's page cache: %d bytes after 400 calls, %d after ReleaseMemory", full, after)
	if after >= full/2 {
		t.Fatalf("writer's page cache %d bytes after ReleaseMemory, %d before", after, full)
	}
	write(400, 410)
	for _, id := range []string{"mem-0", "mem-399", "mem-409"} {
		e, err := db.HistoryByCall(ctx, id)
		if err != nil || e.Outcome != "answered" {
			t.Fatalf("history of %s after ReleaseMemory: %+v, %v", id, e, err)
		}
	}
}
