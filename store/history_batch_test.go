package store

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"
)

// callWrites are the three writes of one answered incoming call, as the
// phone makes them.
func callWrites(id string, at time.Time) []HistoryWrite {
	start := HistoryEntry{CallID: id, AccountID: "acc", Account: "alice", Direction: "in",
		Number: "+49301" + id, URI: "sip:" + id + "@pbx", StartedAt: at}
	end := start
	end.Outcome, end.Answered, end.AnsweredAt, end.AnsweredBy = "answered", true, at.Add(time.Second), "no"
	end.EndedAt, end.DurationS = at.Add(3*time.Second), 2
	return []HistoryWrite{{Kind: HistoryStart, Entry: start},
		{Kind: HistoryAnswer, Entry: HistoryEntry{CallID: id, AnsweredAt: at.Add(time.Second), AnsweredBy: "no"}},
		{Kind: HistoryFinish, Entry: end}}
}

// checkCall fails unless the entry of call id is complete as callWrites
// left it.
func checkCall(t *testing.T, db *DB, id string, at time.Time) {
	t.Helper()
	e, err := db.HistoryByCall(context.Background(), id)
	if err != nil {
		t.Fatalf("call %s: %v", id, err)
	}
	if e.Open || e.Outcome != "answered" || !e.Answered || !e.AnsweredAt.Equal(at.Add(time.Second)) ||
		e.AnsweredBy != "no" || !e.EndedAt.Equal(at.Add(3*time.Second)) || e.DurationS != 2 ||
		e.Number != "+49301"+id || e.Direction != "in" || !e.StartedAt.Equal(at) {
		t.Fatalf("call %s: %+v", id, e)
	}
}

// TestWriteHistoryBurst: the writes of many calls in one WriteHistory, in
// order (each call's start, answer and end, calls interleaved as they come
// in a burst): every entry is there and complete, and each end told the
// hooks once.
func TestWriteHistoryBurst(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	told := 0
	db.OnHistoryFinished(func() { told++ })
	const calls = 300
	var ws []HistoryWrite
	for i := 0; i < calls; i += 2 { // two calls at a time overlap
		a, b := callWrites("c"+strconv.Itoa(i), t0.Add(time.Duration(i)*time.Minute)), callWrites("c"+strconv.Itoa(i+1), t0.Add(time.Duration(i+1)*time.Minute))
		ws = append(ws, a[0], b[0], a[1], b[1], b[2], a[2])
	}
	if errs := db.WriteHistory(ctx, ws); errs != nil {
		t.Fatalf("errors: %v", errs)
	}
	for i := 0; i < calls; i++ {
		checkCall(t, db, "c"+strconv.Itoa(i), t0.Add(time.Duration(i)*time.Minute))
	}
	list, err := db.ListHistory(ctx, HistoryFilter{Limit: 1000})
	if err != nil || len(list) != calls {
		t.Fatalf("list: %d entries, %v", len(list), err)
	}
	if told != calls {
		t.Fatalf("hooks told %d times, want %d", told, calls)
	}
	// The search index took the grouped writes too.
	if list, _ := db.ListHistory(ctx, HistoryFilter{Text: "c17@"}); len(list) != 1 || list[0].CallID != "c17" {
		t.Fatalf("search: %+v", list)
	}
}

// TestWriteHistoryErrorKeepsOthers: writes that fail in a group (no call
// id; an id taken by another entry, which SQLite refuses inside the
// transaction; a start with an unknown tag, made the slower way) report
// their errors, and every other write of the group is in the database;
// an end whose start was lost is written whole in the middle of a group.
func TestWriteHistoryErrorKeepsOthers(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	if err := db.StartHistory(ctx, HistoryEntry{ID: "taken", CallID: "old", StartedAt: t0}); err != nil {
		t.Fatal(err)
	}
	a, b, c := callWrites("a", t0), callWrites("b", t0.Add(time.Minute)), callWrites("c", t0.Add(2*time.Minute))
	lost := callWrites("lost", t0.Add(3*time.Minute))[2] // its start never came
	ws := []HistoryWrite{
		a[0], a[1],
		{Kind: HistoryStart, Entry: HistoryEntry{Number: "no call id"}},                      // 2
		{Kind: HistoryStart, Entry: HistoryEntry{ID: "taken", CallID: "dup", StartedAt: t0}}, // 3
		b[0], lost, b[1],
		{Kind: HistoryStart, Entry: HistoryEntry{CallID: "tagged", Tags: []string{"no-such-code"}}}, // 7
		b[2], a[2], c[0], c[1], c[2],
		{Kind: "bogus", Entry: HistoryEntry{CallID: "x"}}, // 13
	}
	errs := db.WriteHistory(ctx, ws)
	if len(errs) != len(ws) {
		t.Fatalf("errors: %v", errs)
	}
	for i, err := range errs {
		switch i {
		case 2, 13:
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("write %d: %v, want ErrInvalid", i, err)
			}
		case 3:
			if err == nil {
				t.Errorf("write %d (an id taken): no error", i)
			}
		case 7:
			if !errors.Is(err, ErrUnknownCode) {
				t.Errorf("write %d: %v, want ErrUnknownCode", i, err)
			}
		default:
			if err != nil {
				t.Errorf("write %d: %v", i, err)
			}
		}
	}
	checkCall(t, db, "a", t0)
	checkCall(t, db, "b", t0.Add(time.Minute))
	checkCall(t, db, "c", t0.Add(2*time.Minute))
	if e, err := db.HistoryByCall(ctx, "lost"); err != nil || e.Open || e.Outcome != "answered" || e.Number != "+49301lost" {
		t.Fatalf("lost start: %+v %v", e, err)
	}
	for _, id := range []string{"dup", "tagged"} {
		if _, err := db.HistoryByCall(ctx, id); !errors.Is(err, ErrNotFound) {
			t.Errorf("call %s: %v, want not written", id, err)
		}
	}
	if e, _ := db.GetHistory(ctx, "taken"); e.CallID != "old" {
		t.Fatalf("the entry whose id was asked for again: %+v", e)
	}
	// A start with known tags in a group is written with them.
	errs = db.WriteHistory(ctx, []HistoryWrite{{Kind: HistoryStart, Entry: HistoryEntry{ID: "t1", CallID: "tagged", Tags: []string{"support"}}},
		{Kind: HistoryAnswer, Entry: HistoryEntry{CallID: "tagged", AnsweredAt: t0, AnsweredBy: "no"}}})
	if e, _ := db.GetHistory(ctx, "t1"); errs != nil || !slices.Equal(e.Tags, []string{"support"}) || !e.Answered {
		t.Fatalf("tagged start: %v %+v", errs, e)
	}
}

// TestWriteHistoryKilledAfter is the process TestWriteHistoryCommittedOnKill
// kills: it writes a burst of calls in one group, says so, and waits.
func TestWriteHistoryKilledAfter(t *testing.T) {
	path := os.Getenv("STORE_BATCH_HELPER")
	if path == "" {
		t.Skip("run by TestWriteHistoryCommittedOnKill")
	}
	db, err := OpenDB(path)
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(1)
	}
	var ws []HistoryWrite
	for i := 0; i < 100; i++ {
		ws = append(ws, callWrites("k"+strconv.Itoa(i), t0.Add(time.Duration(i)*time.Second))...)
	}
	if errs := db.WriteHistory(context.Background(), ws); errs != nil {
		fmt.Println("write:", errs)
		os.Exit(1)
	}
	fmt.Println("written")
	select {} // killed here, the database never closed
}

// TestWriteHistoryCommittedOnKill: what WriteHistory reported written is in
// the database after the process is killed with -9 right after.
func TestWriteHistoryCommittedOnKill(t *testing.T) {
	path := filepath.Join(t.TempDir(), "softphone.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestWriteHistoryKilledAfter$")
	cmd.Env = append(os.Environ(), "STORE_BATCH_HELPER="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "written\n" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("helper: %q %v", line, err)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	db, err := OpenDB(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i := 0; i < 100; i++ {
		checkCall(t, db, "k"+strconv.Itoa(i), t0.Add(time.Duration(i)*time.Second))
	}
}
