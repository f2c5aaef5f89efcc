package sipua

import (
	"context"
	"time"

	"github.com/softphone/softphone/store"
)

// The history subscriber writes what happens when it happens (issue 14):
// the entry when the call starts, the answer when it is answered, the
// moment each live call was last known alive every aliveEvery, and the end.
// A write that fails (a full disk) is kept in memory, in order, with every
// write after it, and tried again with backoff until it succeeds, so no call
// made while the disk is full is lost while the process lives.

// aliveEvery is the heartbeat of live calls: a crash costs at most this much
// talk time. One UPDATE for all live calls, only while there are any.
const aliveEvery = 2 * time.Second

// maxPendingHistory bounds the writes kept in memory while the disk is full
// (each call makes at most three; 100,000 is a very long outage).
const maxPendingHistory = 100_000

// answerDB is what the answer and the heartbeat need of the store.
type answerDB interface {
	AnswerHistory(ctx context.Context, callID string, at time.Time, answeredBy string) error
	HistoryAlive(ctx context.Context, callIDs []string, at time.Time) error
}

// diskNoter hears the outcome of every write (store.DB: the disk-full state
// behind the page's banner).
type diskNoter interface{ NoteWrite(err error) }

type historyKind uint8

const (
	histStart historyKind = iota
	histAnswer
	histFinish
)

// historyOp is one history write.
type historyOp struct {
	kind historyKind
	h    store.HistoryEntry
}

// groupDB makes several history writes at once (store.DB: one transaction
// for a group large enough to pay for it).
type groupDB interface {
	WriteHistory(ctx context.Context, ws []store.HistoryWrite) []error
}

// maxHistoryGroup bounds the writes handed over at once.
const maxHistoryGroup = 512

// historyWriter is the state of the history subscriber's goroutine.
type historyWriter struct {
	p        *Phone
	live     map[string]bool // calls started and not ended
	answered map[string]bool // live calls whose answer is written or queued
	group    []historyOp     // writes of the events in hand, made together by flushGroup
	pending  []historyOp     // writes that failed and those after them
	lost     int             // writes dropped beyond maxPendingHistory
	backoff  retryBackoff
	retry    *time.Timer
	armed    bool
	beat     *time.Timer // the heartbeat's next turn, while beating (history_beat.go)
	beating  bool
	rlog     rateLog
}

func newHistoryWriter(p *Phone) *historyWriter {
	w := &historyWriter{p: p, live: map[string]bool{}, answered: map[string]bool{},
		backoff: retryBackoff{min: time.Second, max: 30 * time.Second}, retry: time.NewTimer(time.Hour),
		beat: time.NewTimer(time.Hour)}
	w.retry.Stop()
	w.beat.Stop()
	return w
}

// event turns a bus event into the writes it needs.
func (w *historyWriter) event(e Event) {
	c := e.Call
	switch e.Kind {
	case EventCallStarted:
		w.live[c.ID] = true
		h := historyEntry(c)
		if h.Name == "" {
			h.Name = w.p.contactName(h.Number)
		}
		w.do(historyOp{kind: histStart, h: h})
		if !c.AnsweredAt.IsZero() {
			w.answer(c)
		}
	case EventCallStateChanged:
		if !c.AnsweredAt.IsZero() && w.live[c.ID] && !w.answered[c.ID] {
			w.answer(c)
		}
	case EventCallEnded:
		delete(w.live, c.ID)
		delete(w.answered, c.ID)
		h := historyEntry(c)
		if h.Name == "" {
			h.Name = w.p.contactName(h.Number)
		}
		w.do(historyOp{kind: histFinish, h: h})
	}
}

func (w *historyWriter) answer(c Call) {
	if _, ok := w.p.db.(answerDB); !ok {
		return
	}
	w.answered[c.ID] = true
	by := c.AnsweredBy
	if by == "" {
		by = "no" // a person, unless the phone learned otherwise (Flat)
	}
	w.do(historyOp{kind: histAnswer, h: store.HistoryEntry{CallID: c.ID, AnsweredAt: c.AnsweredAt, AnsweredBy: by}})
}

// do adds op to the writes of the events in hand (flushGroup makes them).
func (w *historyWriter) do(op historyOp) {
	w.group = append(w.group, op)
}

// flushGroup makes the writes of the events in hand (the one received and
// those that were queued behind it, issue 20), in order, or queues them
// behind writes that are waiting.
func (w *historyWriter) flushGroup() {
	ops := foldAnswers(dropSuperseded(w.group))
	defer func() {
		clear(ops)
		if cap(ops) > 64 {
			w.group = nil // a burst's array is not kept
		} else {
			w.group = ops[:0]
		}
	}()
	if len(w.pending) > 0 || w.backoff.failing() {
		for _, op := range ops {
			w.queue(op)
		}
		return
	}
	if n, err := w.writeAll(ops); err != nil {
		w.failed(err, ops[n].h.CallID)
		for _, op := range ops[n:] {
			w.queue(op)
		}
	}
}

// dropSuperseded removes from ops each answer that an end of the same call
// later in ops supersedes, in place, and returns what is left. The end
// writes the answer too (answered, its moment and by whom), and the rest of
// what the answer writes, the moment the call was last known alive, only
// matters while an entry is open: the entry is the same, one write less.
// None is held back for this: the end is written now, with the answer.
func dropSuperseded(ops []historyOp) []historyOp {
	if len(ops) < 2 {
		return ops
	}
	ended := map[string]bool{}
	keep := len(ops)
	for i := len(ops) - 1; i >= 0; i-- {
		op := ops[i]
		switch {
		case op.kind == histFinish:
			ended[op.h.CallID] = true
		case op.kind == histAnswer && ended[op.h.CallID]:
			continue // superseded: left out
		}
		keep--
		ops[keep] = op
	}
	n := copy(ops, ops[keep:])
	clear(ops[n:])
	return ops[:n]
}

// foldAnswers folds into a start each answer of the same call later in
// ops, in place, and returns what is left: the entry is written answered
// at once, one write less (issue 20: an auto-answered call's start and
// answer are queued together). Recovery after a crash takes the answer's
// moment from answered_at as it would from alive_at, which the answer
// also set.
func foldAnswers(ops []historyOp) []historyOp {
	if len(ops) < 2 {
		return ops
	}
	var starts map[string]int
	n := 0
	for _, op := range ops {
		switch op.kind {
		case histStart:
			if starts == nil {
				starts = map[string]int{}
			}
			starts[op.h.CallID] = n
		case histAnswer:
			if i, ok := starts[op.h.CallID]; ok {
				s := &ops[i].h
				s.Answered, s.AnsweredAt, s.AnsweredBy = true, op.h.AnsweredAt, op.h.AnsweredBy
				continue
			}
		}
		ops[n] = op
		n++
	}
	clear(ops[n:])
	return ops[:n]
}

// writeAll makes ops in order; on a failure it reports the index of the
// first write that failed and its error (the writes after it may have
// been made too: each is idempotent, so making them again does no harm).
func (w *historyWriter) writeAll(ops []historyOp) (int, error) {
	g, ok := w.p.db.(groupDB)
	if !ok || len(ops) == 1 {
		for i, op := range ops {
			if err := w.write(op); err != nil {
				return i, err
			}
		}
		return 0, nil
	}
	ws := make([]store.HistoryWrite, len(ops))
	for i, op := range ops {
		ws[i] = store.HistoryWrite{Kind: historyKinds[op.kind], Entry: op.h}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for i, err := range g.WriteHistory(ctx, ws) {
		if err != nil {
			w.note(err)
			return i, err
		}
	}
	w.note(nil)
	return 0, nil
}

func (w *historyWriter) queue(op historyOp) {
	if len(w.pending) >= maxPendingHistory {
		w.lost++
		if w.lost == 1 || w.lost%1000 == 0 {
			w.p.log.Error("history write dropped: too many waiting for the disk", "call", op.h.CallID, "dropped", w.lost)
		}
		return
	}
	w.pending = append(w.pending, op)
	w.journal(op)
	w.arm()
}

// historyJournal is the store's journal of history writes that wait
// (store.DB): a crash during a full disk then loses only what neither the
// database nor the journal could take.
type historyJournal interface {
	JournalHistory(kind string, e store.HistoryEntry) error
	ClearHistoryJournal() error
}

var historyKinds = [...]string{histStart: store.HistoryStart, histAnswer: store.HistoryAnswer, histFinish: store.HistoryFinish}

// journal appends a waiting write to the journal when the file takes it
// (its failure is the same full disk: not logged again).
func (w *historyWriter) journal(op historyOp) {
	if j, ok := w.p.db.(historyJournal); ok {
		_ = j.JournalHistory(historyKinds[op.kind], op.h)
	}
}

// write makes one write.
func (w *historyWriter) write(op historyOp) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var err error
	switch op.kind {
	case histStart:
		err = w.p.db.StartHistory(ctx, op.h)
	case histAnswer:
		err = w.p.db.(answerDB).AnswerHistory(ctx, op.h.CallID, op.h.AnsweredAt, op.h.AnsweredBy)
	case histFinish:
		err = w.p.db.FinishHistory(ctx, op.h)
	}
	w.note(err)
	return err
}

func (w *historyWriter) note(err error) {
	if n, ok := w.p.db.(diskNoter); ok {
		n.NoteWrite(err)
	}
}

// failed backs off and logs (at most once a minute).
func (w *historyWriter) failed(err error, callID string) {
	w.backoff.next()
	w.rlog.fail(w.p.log, "history not written; kept in memory and tried again", err, "call", callID, "waiting", len(w.pending)+1)
	w.arm()
}

func (w *historyWriter) arm() {
	if !w.armed {
		w.retry.Reset(max(w.backoff.cur, time.Second))
		w.armed = true
	}
}

// flush tries the waiting writes in order (in groups), stopping at the
// first failure.
func (w *historyWriter) flush() {
	w.armed = false
	for len(w.pending) > 0 {
		ops := w.pending[:min(len(w.pending), maxHistoryGroup)]
		if n, err := w.writeAll(ops); err != nil {
			clear(w.pending[:n])
			w.pending = w.pending[n:]
			w.failed(err, w.pending[0].h.CallID)
			return
		}
		clear(ops)
		w.pending = w.pending[len(ops):]
	}
	w.pending = nil
	if j, ok := w.p.db.(historyJournal); ok {
		if err := j.ClearHistoryJournal(); err != nil {
			w.p.log.Warn("history journal not emptied", "error", err)
		}
	}
	if w.backoff.failing() && w.heartbeat() {
		return
	}
	w.backoff.reset()
	w.rlog.ok(w.p.log, "history written again")
}

// heartbeat writes the moment the live calls were last known alive; it
// reports whether that failed (then the writer backs off).
func (w *historyWriter) heartbeat() (failed bool) {
	a, ok := w.p.db.(answerDB)
	if !ok || len(w.live) == 0 {
		return false
	}
	ids := make([]string, 0, len(w.live))
	for id := range w.live {
		ids = append(ids, id)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := a.HistoryAlive(ctx, ids, time.Now())
	w.note(err)
	if err != nil {
		w.failed(err, "")
		return true
	}
	return false
}

// tick is the heartbeat's turn: skipped while writes wait for the disk
// (the retry writes it when they succeed). It also indexes for search the
// entries written since the last tick, in one go (store 0021: a batch
// costs the search index about what one entry did alone).
func (w *historyWriter) tick() {
	if len(w.pending) == 0 && !w.backoff.failing() {
		w.heartbeat()
		w.indexSearch()
	}
}

// searchIndexer indexes noted history entries for search (store.DB).
type searchIndexer interface {
	IndexHistorySearch(ctx context.Context) (int, error)
}

// indexSearch indexes what waits for the search index. A failure is the
// disk's (the next write says so); a search indexes first anyway, and finds
// what still waits without the index.
func (w *historyWriter) indexSearch() {
	s, ok := w.p.db.(searchIndexer)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := s.IndexHistorySearch(ctx); err != nil {
		w.p.log.Debug("history search index not brought up to date", "error", err)
	}
}
