package store

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// The history journal (issue 14): history writes that the database refused
// (a full disk) wait in the phone's memory until they succeed; each is also
// appended here when the file can take it (an append often fits in a block
// the file has already), so a crash during the outage loses only what
// neither could hold. The journal is emptied once nothing waits, and
// replayed when the database is next opened: the writes are idempotent
// (a start is ignored when the entry exists, an answer or end overwrites).

// History write kinds in the journal.
const (
	HistoryStart  = "start"
	HistoryAnswer = "answer"
	HistoryFinish = "finish"
)

// maxHistoryJournal bounds the lines replayed (the phone keeps at most
// 100,000 writes waiting).
const maxHistoryJournal = 100_000

type histJournal struct {
	mu        sync.Mutex
	path      string
	f         *os.File
	size      int64
	replayErr error // why the replay at open failed: the journal is then kept whole for the next open
}

// HistoryJournalReplay tells why the history journal could not be replayed
// at open (nil: replayed, or nothing to replay).
func (db *DB) HistoryJournalReplay() error {
	db.hjournal.mu.Lock()
	defer db.hjournal.mu.Unlock()
	return db.hjournal.replayErr
}

type historyLine struct {
	Kind  string       `json:"k"`
	Entry HistoryEntry `json:"e"`
}

func historyJournalPath(dbPath string) string { return dbPath + "-history.jnl" }

// JournalHistory appends one history write that the database refused.
func (db *DB) JournalHistory(kind string, e HistoryEntry) error {
	b, err := json.Marshal(historyLine{Kind: kind, Entry: e})
	if err != nil {
		return fmt.Errorf("history journal: %w", err)
	}
	j := &db.hjournal
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		f, err := os.OpenFile(j.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return fmt.Errorf("history journal: %w", err)
		}
		st, _ := f.Stat()
		j.f, j.size = f, st.Size()
	}
	n, err := j.f.Write(append(b, '\n'))
	if err != nil {
		if n > 0 {
			_ = j.f.Truncate(j.size) // no torn line for the next append to glue onto
		}
		return fmt.Errorf("history journal: %w", err)
	}
	j.size += int64(n)
	return nil
}

// ClearHistoryJournal empties the journal: every write it held is in the
// database.
func (db *DB) ClearHistoryJournal() error {
	j := &db.hjournal
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.replayErr != nil || (j.size == 0 && j.f != nil) {
		return nil
	}
	if err := os.Truncate(j.path, 0); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("history journal: %w", err)
	}
	j.size = 0
	return nil
}

// replayHistoryJournal applies what a crash left in the journal, in order,
// then empties it; when a write fails the journal is kept for the next open.
func (db *DB) replayHistoryJournal(ctx context.Context) error {
	f, err := os.Open(db.hjournal.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("history journal: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, maxJournalLine)
	for i := 0; i < maxHistoryJournal; i++ {
		line, rerr := readJournalLine(r)
		var hl historyLine
		if len(line) > 0 && json.Unmarshal(line, &hl) == nil && hl.Entry.CallID != "" {
			var err error
			switch hl.Kind {
			case HistoryStart:
				err = db.StartHistory(ctx, hl.Entry)
			case HistoryAnswer:
				err = db.AnswerHistory(ctx, hl.Entry.CallID, hl.Entry.AnsweredAt, hl.Entry.AnsweredBy)
			case HistoryFinish:
				err = db.FinishHistory(ctx, hl.Entry)
			}
			if err != nil {
				return fmt.Errorf("history journal: %w", err)
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return fmt.Errorf("history journal: %w", rerr)
		}
	}
	return db.ClearHistoryJournal()
}

func (db *DB) closeHistoryJournal() {
	j := &db.hjournal
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f != nil {
		_ = j.f.Close()
		j.f = nil
	}
}
