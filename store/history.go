package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"gorm.io/gorm"
)

type historyRow struct {
	ID         string  `gorm:"column:id;primaryKey"`
	CallID     string  `gorm:"column:call_id"`
	SeanceID   string  `gorm:"column:seance_id"`
	AccountID  string  `gorm:"column:account_id"`
	Account    string  `gorm:"column:account"`
	Direction  string  `gorm:"column:direction"`
	Number     string  `gorm:"column:number"`
	URI        string  `gorm:"column:uri"`
	Name       string  `gorm:"column:name"`
	Dialed     string  `gorm:"column:dialed"`
	Outcome    string  `gorm:"column:outcome"`
	Answered   bool    `gorm:"column:answered"`
	DurationS  float64 `gorm:"column:duration_s"`
	Reason     string  `gorm:"column:reason"`
	AnsweredBy string  `gorm:"column:answered_by"`
	StartedAt  int64   `gorm:"column:started_at"`
	AnsweredAt int64   `gorm:"column:answered_at"`
	EndedAt    int64   `gorm:"column:ended_at"`
	Open       bool    `gorm:"column:open"`
	Declined   bool    `gorm:"column:declined"`
	Jitter     float64 `gorm:"column:jitter"`
	Loss       float64 `gorm:"column:loss"`
	Note       string  `gorm:"column:note"`
	Recording  string  `gorm:"column:recording"`
	Secure     bool    `gorm:"column:secure"`
	SIPStatus  int     `gorm:"column:sip_status"`
}

func (historyRow) TableName() string { return "history" }

type historyTagRow struct {
	HistoryID string `gorm:"column:history_id;primaryKey"`
	Code      string `gorm:"column:code;primaryKey"`
}

func (historyTagRow) TableName() string { return "history_tags" }

func historyRowOf(e HistoryEntry) historyRow {
	return historyRow{ID: e.ID, CallID: e.CallID, SeanceID: e.SeanceID, AccountID: e.AccountID,
		Account: e.Account, Direction: e.Direction, Number: e.Number, URI: e.URI, Name: e.Name,
		Dialed: e.Dialed, Outcome: e.Outcome, Answered: e.Answered, DurationS: e.DurationS,
		Reason: e.Reason, AnsweredBy: e.AnsweredBy, StartedAt: ts(e.StartedAt),
		AnsweredAt: ts(e.AnsweredAt), EndedAt: ts(e.EndedAt), Open: e.Open, Declined: e.Declined,
		Jitter: e.Jitter, Loss: e.Loss, Note: e.Note, Recording: e.Recording, Secure: e.Secure,
		SIPStatus: e.SIPStatus}
}

func (r historyRow) entry() HistoryEntry {
	return HistoryEntry{ID: r.ID, CallID: r.CallID, SeanceID: r.SeanceID, AccountID: r.AccountID,
		Account: r.Account, Direction: r.Direction, Number: r.Number, URI: r.URI, Name: r.Name,
		Dialed: r.Dialed, Outcome: r.Outcome, Answered: r.Answered, DurationS: r.DurationS,
		Reason: r.Reason, AnsweredBy: r.AnsweredBy, StartedAt: fromTS(r.StartedAt),
		AnsweredAt: fromTS(r.AnsweredAt), EndedAt: fromTS(r.EndedAt), Open: r.Open,
		Declined: r.Declined, Jitter: r.Jitter, Loss: r.Loss, Note: r.Note, Recording: r.Recording,
		Tags: []string{}, Secure: r.Secure, SIPStatus: r.SIPStatus}
}

// StartHistory writes the entry of a call that has just started, with Open
// set. A second start for the same CallID is ignored, so a repeated event does
// no harm. An empty ID gets a new UUID; a zero StartedAt is now.
func (db *DB) StartHistory(ctx context.Context, e HistoryEntry) error {
	e, args, err := startArgs(e)
	if err != nil {
		return err
	}
	db.noteSearch()
	if len(e.Tags) == 0 {
		// Every call starts here: one statement on a kept prepared
		// statement (sqlstmt.go), no transaction around it (it is atomic
		// alone) and no gorm.
		if _, err := db.hotExec(ctx, startInsert, args...); err != nil {
			return fmt.Errorf("start history of call %s: %w", e.CallID, err)
		}
		return nil
	}
	return db.g.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Exec(startInsert, args...)
		if res.Error != nil {
			return fmt.Errorf("start history of call %s: %w", e.CallID, res.Error)
		}
		if res.RowsAffected == 0 {
			return nil
		}
		return writeTags(tx, e.ID, e.Tags, nil)
	})
}

// startInsert writes a new entry (StartHistory; the arguments of startArgs).
const startInsert = `INSERT INTO history (id, call_id, seance_id, account_id, account, direction, number, uri,
			name, dialed, outcome, answered, duration_s, reason, answered_by, started_at, answered_at, ended_at,
			open, declined, jitter, loss, note, recording, rev, seq)
			VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,random(),` + nextSeq + `) ON CONFLICT (call_id) DO NOTHING`

// nextSeq numbers a new entry: the history is listed newest first in the
// order its entries were written, not by their wall-clock start, which a
// clock stepped back puts before the calls of the hour before (0023). The
// highest number is the first entry of the history_page index.
const nextSeq = "(SELECT coalesce(max(seq), 0) + 1 FROM history)"

// startArgs checks e and completes it for StartHistory (a new id, the start
// now, Open), and returns the arguments of startInsert.
func startArgs(e HistoryEntry) (HistoryEntry, []any, error) {
	if e.CallID == "" {
		return e, nil, fmt.Errorf("start history: %w: empty call id", ErrInvalid)
	}
	if e.ID == "" {
		e.ID = uuid.NewString()
	}
	if e.StartedAt.IsZero() {
		e.StartedAt = time.Now()
	}
	e.Open = true
	r := historyRowOf(e)
	return e, []any{r.ID, r.CallID, r.SeanceID, r.AccountID, r.Account, r.Direction, r.Number, r.URI, r.Name, r.Dialed,
		r.Outcome, r.Answered, r.DurationS, r.Reason, r.AnsweredBy, r.StartedAt, r.AnsweredAt, r.EndedAt,
		r.Open, r.Declined, r.Jitter, r.Loss, r.Note, r.Recording}, nil
}

// FinishHistory completes the entry of e.CallID and clears Open. Outcome,
// answer, duration, reason, end and quality are always written; identity
// fields (number, name, uri, account, ...) only when e has them, so a name
// learned during the call is kept. Note and tags are left alone. When no
// entry was started (a lost start), the entry is written whole.
func (db *DB) FinishHistory(ctx context.Context, e HistoryEntry) error {
	e, args, err := finishArgs(e)
	if err != nil {
		return err
	}
	// Every call ends here: one UPDATE on a kept prepared statement
	// (sqlstmt.go), no gorm, no transaction; only an entry whose start was
	// lost takes the slower way. The statement is the same text for every
	// call (so it is prepared once): an identity field or start left empty
	// keeps what the entry has (nullif/coalesce).
	db.noteSearch() // a number, name or uri learned at the end
	n, err := db.hotExec(ctx, finishUpdate, args...)
	if err != nil {
		return fmt.Errorf("finish history of call %s: %w", e.CallID, err)
	}
	if n > 0 {
		db.finished.tell()
		return nil
	}
	return db.finishWhole(ctx, e, args)
}

// finishArgs checks e and completes it for FinishHistory (the end now, not
// Open), and returns the arguments of finishUpdate.
func finishArgs(e HistoryEntry) (HistoryEntry, []any, error) {
	if e.CallID == "" {
		return e, nil, fmt.Errorf("finish history: %w: empty call id", ErrInvalid)
	}
	if e.EndedAt.IsZero() {
		e.EndedAt = time.Now()
	}
	e.Open = false
	r := historyRowOf(e)
	return e, []any{r.Outcome, r.Answered, r.DurationS, r.Reason, r.AnsweredBy, r.AnsweredAt, r.EndedAt,
		r.Declined, r.Jitter, r.Loss, r.Secure, r.SIPStatus, r.SeanceID, r.AccountID, r.Account, r.Direction,
		r.Number, r.URI, r.Name, r.Dialed, r.Recording, r.StartedAt, e.CallID}, nil
}

// finishWhole is FinishHistory's slower way, for an entry whose start was
// lost: the whole entry is written (in one transaction with the update, in
// case the start arrives meanwhile).
func (db *DB) finishWhole(ctx context.Context, e HistoryEntry, args []any) error {
	r := historyRowOf(e)
	err := db.g.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Exec(finishUpdate, args...)
		if res.Error != nil {
			return fmt.Errorf("finish history of call %s: %w", e.CallID, res.Error)
		}
		if res.RowsAffected > 0 {
			return nil
		}
		if r.ID == "" {
			r.ID = uuid.NewString()
		}
		if r.StartedAt == 0 {
			r.StartedAt = r.EndedAt
		}
		if err := tx.Create(&r).Error; err != nil {
			return fmt.Errorf("finish history of call %s: %w", e.CallID, err)
		}
		if err := tx.Exec("UPDATE history SET seq = "+nextSeq+" WHERE id = ?", r.ID).Error; err != nil {
			return fmt.Errorf("finish history of call %s: %w", e.CallID, err)
		}
		return writeTags(tx, r.ID, e.Tags, nil)
	})
	if err == nil {
		db.finished.tell()
	}
	return err
}

// finishUpdate completes an entry (FinishHistory): its arguments are the
// outcome .. sip_status, then the identity fields and the start (each kept
// when empty or 0), then the call id. It stamps rev itself (0020).
const finishUpdate = `UPDATE history SET outcome = ?, answered = ?, duration_s = ?, reason = ?, answered_by = ?,
	answered_at = ?, ended_at = ?, open = 0, declined = ?, jitter = ?, loss = ?, secure = ?, sip_status = ?,
	seance_id = coalesce(nullif(?, ''), seance_id), account_id = coalesce(nullif(?, ''), account_id),
	account = coalesce(nullif(?, ''), account), direction = coalesce(nullif(?, ''), direction),
	number = coalesce(nullif(?, ''), number), uri = coalesce(nullif(?, ''), uri),
	name = coalesce(nullif(?, ''), name), dialed = coalesce(nullif(?, ''), dialed),
	recording = coalesce(nullif(?, ''), recording), started_at = coalesce(nullif(?, 0), started_at),
	rev = random() WHERE call_id = ?`

// maxHistoryPage bounds one page of ListHistory.
const maxHistoryPage = 10000

// ListHistory returns entries newest first (in the order they were written,
// nextSeq). Limit 0 means 100; at
// most 10000. Missed keeps outcome "missed", Declined keeps calls declined by
// this phone; both together keep either. Text matches number, name or uri.
// Rows are read with database/sql and scanned straight into the entries (the
// page is read often; gorm's reflective mapping cost most of it), tags in one
// more query for the whole page.
func (db *DB) ListHistory(ctx context.Context, f HistoryFilter) ([]HistoryEntry, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	limit = min(limit, maxHistoryPage)
	var where []string
	var args []any
	switch {
	case f.Missed && f.Declined:
		where = append(where, "(outcome = 'missed' OR declined = 1)")
	case f.Missed:
		where = append(where, "outcome = 'missed'")
	case f.Declined:
		where = append(where, "declined = 1")
	}
	if f.AccountID != "" {
		where, args = append(where, "account_id = ?"), append(args, f.AccountID)
	}
	if t := strings.TrimSpace(f.Text); utf8.RuneCountInString(t) >= 3 {
		// The trigram index finds substrings of 3 or more characters,
		// case-insensitively, like the LIKE below but without a scan.
		// Entries not yet in it are indexed first (history_search.go).
		if _, err := db.IndexHistorySearch(ctx); err != nil && ctx.Err() != nil {
			return nil, fmt.Errorf("list history: %w", err)
		}
		w, a := searchWhere(`"`+strings.ReplaceAll(t, `"`, `""`)+`"`, "%"+escapeLike(t)+"%")
		where, args = append(where, w), append(args, a...)
	} else if t != "" {
		like := "%" + escapeLike(t) + "%"
		where = append(where, `(number LIKE ? ESCAPE '\' OR name LIKE ? ESCAPE '\' OR uri LIKE ? ESCAPE '\')`)
		args = append(args, like, like, like)
	}
	q := "SELECT " + historyColumns + " FROM history"
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	// LIMIT and OFFSET are written out: as bound parameters they make
	// SQLite prepare the statement a second time on its first step.
	q += " ORDER BY seq DESC, started_at DESC, id DESC LIMIT " + strconv.Itoa(limit) + " OFFSET " + strconv.Itoa(max(f.Offset, 0))
	sdb, err := db.raw()
	if err != nil {
		return nil, fmt.Errorf("list history: %w", err)
	}
	rows, err := sdb.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list history: %w", err)
	}
	out := make([]HistoryEntry, 0, min(limit, 100))
	for rows.Next() {
		e, err := scanHistory(rows)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("list history: %w", err)
		}
		out = append(out, e)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list history: %w", err)
	}
	if err := db.pageTags(ctx, sdb, out); err != nil {
		return nil, fmt.Errorf("list history tags: %w", err)
	}
	return out, nil
}

// GetHistory returns one entry by its own id (not the call id).
func (db *DB) GetHistory(ctx context.Context, id string) (HistoryEntry, error) {
	g := db.g.WithContext(ctx)
	var r historyRow
	if err := g.Where("id = ?", id).Take(&r).Error; err != nil {
		return HistoryEntry{}, notFound(err, "history entry", id)
	}
	e := r.entry()
	if err := g.Model(&historyTagRow{}).Where("history_id = ?", id).Order("code").Pluck("code", &e.Tags).Error; err != nil {
		return HistoryEntry{}, fmt.Errorf("history entry %q tags: %w", id, err)
	}
	return e, nil
}
