package sipua

import (
	"context"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// groupCountingDB is the store, counting the groups of writes it is handed.
type groupCountingDB struct {
	*store.DB
	mu      sync.Mutex
	groups  int
	biggest int
}

func (g *groupCountingDB) WriteHistory(ctx context.Context, ws []store.HistoryWrite) []error {
	g.mu.Lock()
	g.groups++
	g.biggest = max(g.biggest, len(ws))
	g.mu.Unlock()
	return g.DB.WriteHistory(ctx, ws)
}

// TestHistoryWriterGroupsQueued: the events of a burst of calls that are
// queued when the history subscriber takes the first are written together
// (store.WriteHistory), and every call of the burst, and one after it,
// leaves its complete entry.
func TestHistoryWriterGroupsQueued(t *testing.T) {
	db, err := store.OpenDB(filepath.Join(t.TempDir(), "softphone.db"))
	must(t, err)
	t.Cleanup(func() { _ = db.Close() })
	g := &groupCountingDB{DB: db}
	p := &Phone{db: g, log: testLogger()}
	bus := NewBus()
	sub := bus.Subscribe(64, true)
	t0 := time.Now().Add(-time.Hour)
	call := func(i int) {
		c := Call{ID: "burst-" + strconv.Itoa(i), Direction: DirIn, Number: "+4930" + strconv.Itoa(100+i),
			URI: "sip:" + strconv.Itoa(100+i) + "@pbx", StartedAt: t0.Add(time.Duration(i) * time.Second), State: StateRingingIn}
		bus.Publish(Event{Kind: EventCallStarted, Call: c})
		c.State, c.AnsweredAt = StateActive, c.StartedAt.Add(time.Second)
		bus.Publish(Event{Kind: EventCallStateChanged, Call: c})
		c.State, c.EndedAt, c.Outcome, c.Reason = StateEnded, c.AnsweredAt.Add(2*time.Second), OutcomeAnswered, ReasonRemoteHangup
		bus.Publish(Event{Kind: EventCallEnded, Call: c})
	}
	const calls = 40
	for i := 0; i < calls; i++ { // queued before the subscriber runs
		call(i)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); p.writeHistory(ctx, sub) }()
	defer func() { cancel(); <-done }()
	check := func(i int) {
		t.Helper()
		id := "burst-" + strconv.Itoa(i)
		var h store.HistoryEntry
		if !testpeer.WaitFor(10*time.Second, func() bool {
			h, err = db.HistoryByCall(context.Background(), id)
			return err == nil && !h.Open
		}) {
			t.Fatalf("call %s: %+v %v", id, h, err)
		}
		start := t0.Add(time.Duration(i) * time.Second)
		if h.Outcome != OutcomeAnswered || !h.Answered || h.DurationS != 2 ||
			!h.StartedAt.Equal(start) || !h.AnsweredAt.Equal(start.Add(time.Second)) || h.Number != "+4930"+strconv.Itoa(100+i) {
			t.Fatalf("call %s: %+v", id, h)
		}
	}
	for i := 0; i < calls; i++ {
		check(i)
	}
	call(calls) // one more, alone
	check(calls)
	g.mu.Lock()
	defer g.mu.Unlock()
	// The channel held 16 events when the subscriber took the first: at
	// least those went together, 5 calls and a start, 11 writes once the
	// answers their ends supersede are left out.
	if g.biggest < 11 {
		t.Fatalf("largest group %d writes (%d groups), want the queued events together", g.biggest, g.groups)
	}
}

// TestDropSuperseded: of the writes in hand, an answer is left out when the
// same call's end comes after it (the end writes the answer too); every
// other write stays, in order.
func TestDropSuperseded(t *testing.T) {
	op := func(k historyKind, id string) historyOp { return historyOp{kind: k, h: store.HistoryEntry{CallID: id}} }
	ops := []historyOp{op(histStart, "a"), op(histAnswer, "a"), op(histStart, "b"), op(histAnswer, "b"),
		op(histFinish, "a"), op(histAnswer, "c"), op(histFinish, "c"), op(histAnswer, "d")}
	got := dropSuperseded(ops)
	want := []historyOp{op(histStart, "a"), op(histStart, "b"), op(histAnswer, "b"), op(histFinish, "a"),
		op(histFinish, "c"), op(histAnswer, "d")}
	if len(got) != len(want) {
		t.Fatalf("got %d writes, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i].kind != want[i].kind || got[i].h.CallID != want[i].h.CallID {
			t.Fatalf("write %d: %v %s, want %v %s", i, got[i].kind, got[i].h.CallID, want[i].kind, want[i].h.CallID)
		}
	}
	if one := dropSuperseded(ops[:1]); len(one) != 1 {
		t.Fatalf("one write: %+v", one)
	}
}

// TestFoldAnswers: an answer whose call's start is among the same writes
// goes into the start; others stay, in order.
func TestFoldAnswers(t *testing.T) {
	at := time.Now()
	op := func(k historyKind, id string) historyOp { return historyOp{kind: k, h: store.HistoryEntry{CallID: id}} }
	ans := func(id string) historyOp {
		return historyOp{kind: histAnswer, h: store.HistoryEntry{CallID: id, AnsweredAt: at, AnsweredBy: "no"}}
	}
	ops := []historyOp{ans("z"), op(histStart, "a"), op(histStart, "b"), ans("a"), op(histFinish, "b"), ans("c")}
	got := foldAnswers(ops)
	want := []historyOp{ans("z"), op(histStart, "a"), op(histStart, "b"), op(histFinish, "b"), ans("c")}
	if len(got) != len(want) {
		t.Fatalf("got %d writes, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i].kind != want[i].kind || got[i].h.CallID != want[i].h.CallID {
			t.Fatalf("write %d: %v %s, want %v %s", i, got[i].kind, got[i].h.CallID, want[i].kind, want[i].h.CallID)
		}
	}
	if a := got[1].h; !a.Answered || !a.AnsweredAt.Equal(at) || a.AnsweredBy != "no" {
		t.Fatalf("start of a: %+v, want it answered", a)
	}
	if b := got[2].h; b.Answered || !b.AnsweredAt.IsZero() {
		t.Fatalf("start of b: %+v, want it as it was", b)
	}
}

// TestStartAndAnswerWrittenOnce: a call's start and answer handed over
// together leave an open, answered entry in the database, written by one
// statement; a crash now closes it as answered from that moment on.
func TestStartAndAnswerWrittenOnce(t *testing.T) {
	db, err := store.OpenDB(filepath.Join(t.TempDir(), "softphone.db"))
	must(t, err)
	t.Cleanup(func() { _ = db.Close() })
	g := &groupCountingDB{DB: db}
	p := &Phone{db: g, log: testLogger()}
	w := newHistoryWriter(p)
	t0 := time.Now().Add(-time.Minute).Truncate(time.Millisecond)
	c := Call{ID: "auto-1", Direction: DirIn, Number: "+49301234567", StartedAt: t0, State: StateRingingIn}
	w.event(Event{Kind: EventCallStarted, Call: c})
	c.State, c.AnsweredAt = StateActive, t0.Add(10*time.Millisecond)
	w.event(Event{Kind: EventCallStateChanged, Call: c})
	w.flushGroup()
	if g.groups != 0 {
		t.Fatalf("%d groups handed over; want the one write alone", g.groups)
	}
	h, err := db.HistoryByCall(context.Background(), c.ID)
	if err != nil || !h.Open || !h.Answered || !h.AnsweredAt.Equal(c.AnsweredAt) || h.AnsweredBy != "no" || !h.StartedAt.Equal(t0) {
		t.Fatalf("entry = %+v, %v; want it open and answered", h, err)
	}
	open, err := db.InterruptedHistory(context.Background())
	if err != nil || len(open) != 1 || !open[0].AnsweredAt.Equal(c.AnsweredAt) || open[0].Outcome != "answered" {
		t.Fatalf("after a crash now: %+v, %v; want it answered", open, err)
	}
}

// indexCountingDB is the store, counting the entries the history writer
// has it index for search.
type indexCountingDB struct {
	*store.DB
	mu      sync.Mutex
	indexed int
}

func (d *indexCountingDB) IndexHistorySearch(ctx context.Context) (int, error) {
	n, err := d.DB.IndexHistorySearch(ctx)
	d.mu.Lock()
	d.indexed += n
	d.mu.Unlock()
	return n, err
}

// TestHistoryWriterIndexesSearch: the history writer has the entries it
// wrote indexed for search on its heartbeat's tick, with no search asking.
func TestHistoryWriterIndexesSearch(t *testing.T) {
	db, err := store.OpenDB(filepath.Join(t.TempDir(), "softphone.db"))
	must(t, err)
	t.Cleanup(func() { _ = db.Close() })
	d := &indexCountingDB{DB: db}
	if _, err := db.IndexHistorySearch(context.Background()); err != nil { // nothing from the open
		t.Fatal(err)
	}
	p := &Phone{db: d, log: testLogger()}
	bus := NewBus()
	sub := bus.Subscribe(64, true)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); p.writeHistory(ctx, sub) }()
	defer func() { cancel(); <-done }()
	c := Call{ID: "idx-1", Direction: DirIn, Number: "+4930555", StartedAt: time.Now(), State: StateRingingIn}
	bus.Publish(Event{Kind: EventCallStarted, Call: c})
	c.State, c.EndedAt, c.Outcome, c.Reason = StateEnded, time.Now(), OutcomeMissed, ReasonCancelled
	bus.Publish(Event{Kind: EventCallEnded, Call: c})
	if !testpeer.WaitFor(3*aliveEvery+5*time.Second, func() bool {
		d.mu.Lock()
		defer d.mu.Unlock()
		return d.indexed == 1
	}) {
		t.Fatalf("indexed %d entries, want the call's", d.indexed)
	}
}
