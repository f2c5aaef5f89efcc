package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Grouped history writes (issue 20). Each of a call's three history writes
// (start, answer, end) was a transaction of its own, and in WAL mode every
// commit appends each page it changed to the log: the row's page, its
// indexes' and the search index's (0003), whose segment a commit also
// flushes. The three commits of a call were about half of its CPU as a UAS.
// The history subscriber (sipua) now hands over the writes that are queued
// at one moment together, and when there are enough of them (a burst, or
// the backlog after a full disk) they are made in one transaction: one
// commit, each page written once. Nothing waits to be grouped: the writes
// are the ones already queued behind the one in hand, and none of them was
// acknowledged to anyone, so a crash loses no more than it did (what was
// queued in memory).

// HistoryWrite is one history write of a call: Kind is HistoryStart
// (StartHistory of Entry), HistoryAnswer (AnswerHistory of Entry.CallID,
// Entry.AnsweredAt and Entry.AnsweredBy) or HistoryFinish (FinishHistory of
// Entry).
type HistoryWrite struct {
	Kind  string
	Entry HistoryEntry
}

// WriteHistory makes ws in order as StartHistory, AnswerHistory and
// FinishHistory would, all in one transaction where it can: a start with
// tags or an end whose start was lost is made alone (the slower way). It
// returns nil when every write is in the database; otherwise one error a
// write (nil for those written). When a write of the group fails (or its
// commit), the group is undone and its writes and the ones after it are
// made one by one, so one bad write costs no other its place and each gets
// its own error.
func (db *DB) WriteHistory(ctx context.Context, ws []HistoryWrite) []error {
	b := historyBatch{ws: ws}
	db.noteSearch()
	if len(ws) < minHistoryGroup {
		for i, w := range ws {
			b.set(i, db.writeOne(ctx, w))
		}
		return b.errs
	}
	sdb, err := db.raw()
	if err != nil {
		b.failFrom(0, len(ws), err)
		return b.errs
	}
	for i := 0; i < len(ws); {
		stop, finished, err := db.historyTx(ctx, sdb, ws, i)
		if errors.Is(err, errHotOff) || errors.Is(err, errGroupFailed) {
			for ; i < len(ws); i++ { // each alone, the ordinary way
				b.set(i, db.writeOne(ctx, ws[i]))
			}
			break
		}
		if err != nil { // the connection failed
			b.failFrom(i, len(ws), err)
			break
		}
		for ; finished > 0; finished-- {
			db.finished.tell()
		}
		if stop < len(ws) {
			b.set(stop, db.writeOne(ctx, ws[stop]))
		}
		i = stop + 1
	}
	return b.errs
}

// minHistoryGroup is the fewest writes WriteHistory makes in one
// transaction; fewer are made one by one. Inside a transaction SQLite gives
// each statement with triggers a journal of its own (so it can be undone
// alone), and the search index (FTS5) flushes what it holds at each such
// statement: a transaction of one call's three writes cost more than the
// three alone (BenchmarkHistoryCallWritesGrouped: 463-471 cpu-µs a call
// beside 348-351; 4 calls at once 295-363, 10 calls 277-287, 100 calls
// 181-190).
const minHistoryGroup = 12

// historyBatch is a WriteHistory in progress: its writes and their errors
// (nil until one fails).
type historyBatch struct {
	ws   []HistoryWrite
	errs []error
}

func (b *historyBatch) set(i int, err error) {
	if err == nil {
		return
	}
	if b.errs == nil {
		b.errs = make([]error, len(b.ws))
	}
	b.errs[i] = err
}

// failFrom sets err on the writes from..to-1.
func (b *historyBatch) failFrom(from, to int, err error) {
	for i := from; i < to; i++ {
		b.set(i, err)
	}
}

// errGroupFailed: a write of the group or its commit failed, and the group
// was undone.
var errGroupFailed = errors.New("history group failed")

// historyTx makes ws[from:] in one transaction on the writer connection, up
// to the first one that needs the slower way. It returns that write's index
// (len(ws) when none; the write is not made) and how many ends it
// committed. err is errGroupFailed (nothing written), errHotOff (nothing
// done) or the connection's failure.
func (db *DB) historyTx(ctx context.Context, sdb *sql.DB, ws []HistoryWrite, from int) (stop, finished int, err error) {
	stop = len(ws)
	failed := false
	err = db.hot.with(ctx, sdb, func(c hotConn) {
		if c.inTx() { // left open by a failed COMMIT and ROLLBACK: not this group's
			_, _ = c.exec("ROLLBACK")
		}
		if _, err := c.exec("BEGIN IMMEDIATE"); err != nil {
			failed = true
			return
		}
		for k := from; k < len(ws); k++ {
			n, slow, err := historyStmt(c, ws[k])
			if slow {
				stop = k
				break
			}
			if err != nil {
				failed = true
				break
			}
			if ws[k].Kind == HistoryFinish && n > 0 {
				finished++
			}
		}
		if !failed {
			if _, err := c.exec("COMMIT"); err != nil {
				failed = true
			}
		}
		if failed && c.inTx() {
			_, _ = c.exec("ROLLBACK")
		}
	})
	if err == nil && failed {
		err = errGroupFailed
	}
	return stop, finished, err
}

// historyStmt makes one write on c inside the transaction. slow: it needs
// the slower way (nothing was changed).
func historyStmt(c hotConn, w HistoryWrite) (n int64, slow bool, err error) {
	switch w.Kind {
	case HistoryStart:
		e, args, err := startArgs(w.Entry)
		if err != nil {
			return 0, false, err
		}
		if len(e.Tags) > 0 {
			return 0, true, nil
		}
		if n, err = c.exec(startInsert, args...); err != nil {
			return 0, false, fmt.Errorf("start history of call %s: %w", e.CallID, err)
		}
		return n, false, nil
	case HistoryAnswer:
		args, err := answerArgs(w.Entry.CallID, w.Entry.AnsweredAt, w.Entry.AnsweredBy)
		if err != nil {
			return 0, false, err
		}
		if n, err = c.exec(answerUpdate, args...); err != nil {
			return 0, false, fmt.Errorf("answer history of call %s: %w", w.Entry.CallID, err)
		}
		return n, false, nil
	case HistoryFinish:
		e, args, err := finishArgs(w.Entry)
		if err != nil {
			return 0, false, err
		}
		if n, err = c.exec(finishUpdate, args...); err != nil {
			return 0, false, fmt.Errorf("finish history of call %s: %w", e.CallID, err)
		}
		return n, n == 0, nil // no entry to complete: the whole one is written, the slower way
	}
	return 0, false, fmt.Errorf("history write: %w: kind %q", ErrInvalid, w.Kind)
}

// writeOne makes one write alone, the ordinary way.
func (db *DB) writeOne(ctx context.Context, w HistoryWrite) error {
	switch w.Kind {
	case HistoryStart:
		return db.StartHistory(ctx, w.Entry)
	case HistoryAnswer:
		return db.AnswerHistory(ctx, w.Entry.CallID, w.Entry.AnsweredAt, w.Entry.AnsweredBy)
	case HistoryFinish:
		return db.FinishHistory(ctx, w.Entry)
	}
	return fmt.Errorf("history write: %w: kind %q", ErrInvalid, w.Kind)
}
