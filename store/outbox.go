package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
)

// Refusals of the webhook outbox's sender (server/webhook), here beside the
// outbox so that the pages (server/web) can word them while importing only
// the store (ARCHITECTURE.md: server/* import sipua and store).
var (
	// ErrWebhooksOff: webhooks (or the Integration module) are switched
	// off, so nothing is queued for them.
	ErrWebhooksOff = errors.New("webhooks are switched off")
	// ErrOutboxFull: the outbox holds its capacity of events; the event was
	// dropped and counted.
	ErrOutboxFull = errors.New("webhook queue is full")
)

type outboxRow struct {
	Seq        int64  `gorm:"column:seq;primaryKey"`
	DeliveryID string `gorm:"column:delivery_id"`
	CallID     string `gorm:"column:call_id"`
	Event      string `gorm:"column:event"`
	Fields     string `gorm:"column:fields"`
	Attempts   int    `gorm:"column:attempts"`
	NextAt     int64  `gorm:"column:next_at"`
	LastStatus int    `gorm:"column:last_status"`
	LastError  string `gorm:"column:last_error"`
	CreatedAt  int64  `gorm:"column:created_at;autoCreateTime:false"`
}

func (outboxRow) TableName() string { return "outbox" }

func (r outboxRow) event() (OutboxEvent, error) {
	e := OutboxEvent{Seq: r.Seq, DeliveryID: r.DeliveryID, CallID: r.CallID, Event: r.Event,
		Attempts: r.Attempts, NextAt: fromTS(r.NextAt), LastStatus: r.LastStatus,
		LastError: r.LastError, CreatedAt: fromTS(r.CreatedAt)}
	if err := json.Unmarshal([]byte(r.Fields), &e.Fields); err != nil {
		return OutboxEvent{}, fmt.Errorf("outbox event %d fields: %w", r.Seq, err)
	}
	return e, nil
}

type deliveryRow struct {
	DeliveryID string `gorm:"column:delivery_id;primaryKey"`
	CallID     string `gorm:"column:call_id"`
	Event      string `gorm:"column:event"`
	Status     int    `gorm:"column:status"`
	Attempts   int    `gorm:"column:attempts"`
	LastError  string `gorm:"column:last_error"`
	Delivered  bool   `gorm:"column:delivered"`
	At         int64  `gorm:"column:at"`
	Fields     string `gorm:"column:fields"`
}

func (deliveryRow) TableName() string { return "deliveries" }

// deliveryLogSize is how many lines the delivery log keeps (newest).
const deliveryLogSize = 1000

// outboxCount is the number of events in the outbox, so EnqueueOutbox need
// not count them on every insert. EnqueueOutbox and OutboxDone hold mu while
// they write (SQLite runs one writer at a time anyway), so the number moves
// with the rows. It is counted from the table when first needed, and again
// whenever it says the outbox is full, so the capacity is checked against
// the table itself before an event is dropped.
type outboxCount struct {
	mu    sync.Mutex
	n     int
	known bool

	// The delivery log, trimmed by OutboxDone under mu (see trimLog).
	logTrimmed bool // trimmed to its bound since the DB was opened
	logAdds    int  // lines it may have gained since
}

// recount reads the number of events from the table; mu is held.
func (db *DB) recountOutbox(ctx context.Context) error {
	sdb, err := db.raw()
	if err != nil {
		return err
	}
	var n int
	if err := sdb.QueryRowContext(ctx, "SELECT COUNT(*) FROM outbox").Scan(&n); err != nil {
		return err
	}
	db.outbox.n, db.outbox.known = n, true
	return nil
}

// EnqueueOutbox appends an event to the outbox unless it already holds
// capacity events (then it returns false and stores nothing). See
// EnqueueOutboxBatch, which it is with one event.
func (db *DB) EnqueueOutbox(ctx context.Context, e OutboxEvent, capacity int) (bool, error) {
	n, err := db.EnqueueOutboxBatch(ctx, []OutboxEvent{e}, capacity)
	return n == 1, err
}

// execer is what runs a statement: the database or a transaction.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// outboxInsertRows is how many events one INSERT statement carries (9
// parameters each, far below SQLite's limit of 32,766).
const outboxInsertRows = 64

// EnqueueOutboxBatch appends events to the outbox in their order, in one
// transaction, as many as fit below capacity: it returns how many were
// stored (the first n; the rest are not). Seq is given by the database. An
// empty DeliveryID gets a UUID; zero CreatedAt and NextAt are now (due at
// once). The count and the insert are atomic: both happen under the outbox
// lock. One transaction for many events is what makes a burst cheap: most of
// an INSERT's cost is the statement and the commit, not the row.
func (db *DB) EnqueueOutboxBatch(ctx context.Context, evs []OutboxEvent, capacity int) (int, error) {
	if len(evs) == 0 {
		return 0, nil
	}
	now := time.Now()
	args := make([]any, 0, 9*len(evs))
	for _, e := range evs {
		fields := e.Fields
		if fields == nil {
			fields = map[string]string{}
		}
		b, err := json.Marshal(fields)
		if err != nil {
			return 0, fmt.Errorf("enqueue %s of call %s: %w", e.Event, e.CallID, err)
		}
		if e.DeliveryID == "" {
			e.DeliveryID = uuid.NewString()
		}
		if e.CreatedAt.IsZero() {
			e.CreatedAt = now
		}
		if e.NextAt.IsZero() {
			e.NextAt = now
		}
		args = append(args, e.DeliveryID, e.CallID, e.Event, string(b), e.Attempts, ts(e.NextAt),
			e.LastStatus, e.LastError, ts(e.CreatedAt))
	}
	c := &db.outbox
	c.mu.Lock()
	defer c.mu.Unlock()
	fail := func(err error) (int, error) {
		return 0, fmt.Errorf("enqueue %s of call %s: %w", evs[0].Event, evs[0].CallID, err)
	}
	if !c.known || c.n+len(evs) > capacity {
		if err := db.recountOutbox(ctx); err != nil {
			return fail(fmt.Errorf("outbox length: %w", err))
		}
	}
	n := min(len(evs), capacity-c.n)
	if n <= 0 {
		return 0, nil
	}
	insert := func(ex execer, i, k int) error {
		q := `INSERT INTO outbox (delivery_id, call_id, event, fields, attempts, next_at, last_status, last_error, created_at) VALUES ` +
			strings.Repeat("(?, ?, ?, ?, ?, ?, ?, ?, ?), ", k-1) + "(?, ?, ?, ?, ?, ?, ?, ?, ?)"
		_, err := ex.ExecContext(ctx, q, args[9*i:9*(i+k)]...)
		return err
	}
	var err error
	if n <= outboxInsertRows {
		// One statement is atomic by itself; BEGIN and COMMIT would only add.
		var sdb *sql.DB
		if sdb, err = db.raw(); err == nil {
			err = insert(sdb, 0, n)
		}
	} else {
		err = db.inTx(ctx, func(tx *sql.Tx) error {
			for i := 0; i < n; i += outboxInsertRows {
				if err := insert(tx, i, min(outboxInsertRows, n-i)); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err != nil {
		c.known = false // whatever happened, count again next time
		return fail(err)
	}
	c.n += n
	return n, nil
}

// DueOutbox returns, for each call with events waiting, only its oldest event
// (lowest Seq), and only when that event is due (NextAt <= now); at most limit
// (0 means 100), in Seq order. A later event of a call waits behind an earlier
// one that is being retried, which keeps each call's events in order.
func (db *DB) DueOutbox(ctx context.Context, now time.Time, limit int) ([]OutboxEvent, error) {
	if limit <= 0 {
		limit = 100
	}
	sdb, err := db.raw()
	if err != nil {
		return nil, fmt.Errorf("due outbox: %w", err)
	}
	// Walk the outbox in Seq order and keep each event that is due and has
	// no earlier event of its call (one probe of outbox_call_seq each), so
	// a page is found without grouping the whole backlog.
	rows, err := sdb.QueryContext(ctx, `SELECT seq, delivery_id, call_id, event, fields, attempts, next_at,
		last_status, last_error, created_at FROM outbox o
		WHERE next_at <= ? AND NOT EXISTS (SELECT 1 FROM outbox p WHERE p.call_id = o.call_id AND p.seq < o.seq)
		ORDER BY seq LIMIT ?`, ts(now), limit)
	if err != nil {
		return nil, fmt.Errorf("due outbox: %w", err)
	}
	defer rows.Close()
	var out []OutboxEvent
	for rows.Next() {
		var r outboxRow
		if err := rows.Scan(&r.Seq, &r.DeliveryID, &r.CallID, &r.Event, &r.Fields, &r.Attempts, &r.NextAt,
			&r.LastStatus, &r.LastError, &r.CreatedAt); err != nil {
			return nil, fmt.Errorf("due outbox: %w", err)
		}
		e, err := r.event()
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("due outbox: %w", err)
	}
	if out == nil {
		out = []OutboxEvent{}
	}
	return out, nil
}

// OutboxAttempt records a failed attempt of event seq and when to try next.
func (db *DB) OutboxAttempt(ctx context.Context, seq int64, status int, errText string, next time.Time) error {
	res := db.g.WithContext(ctx).Exec(`UPDATE outbox SET attempts = attempts + 1, last_status = ?,
		last_error = ?, next_at = ? WHERE seq = ?`, status, errText, ts(next), seq)
	if res.Error != nil {
		return fmt.Errorf("outbox attempt %d: %w", seq, res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("outbox attempt %d: %w", seq, ErrNotFound)
	}
	return nil
}

// OutboxLen is the number of events waiting.
func (db *DB) OutboxLen(ctx context.Context) (int, error) {
	var n int64
	if err := db.g.WithContext(ctx).Model(&outboxRow{}).Count(&n).Error; err != nil {
		return 0, fmt.Errorf("outbox length: %w", err)
	}
	return int(n), nil
}

// Deliveries returns the delivery log, newest first; limit 0 means 100.
func (db *DB) Deliveries(ctx context.Context, limit int) ([]Delivery, error) {
	if limit <= 0 {
		limit = 100
	}
	limit = min(limit, db.deliveryLog) // lines beyond the bound wait to be trimmed
	var rows []deliveryRow
	if err := db.g.WithContext(ctx).Order("rowid DESC").Limit(limit).Find(&rows).Error; err != nil { // in the order written (outbox_done.go)
		return nil, fmt.Errorf("deliveries: %w", err)
	}
	out := make([]Delivery, len(rows))
	for i, r := range rows {
		d, err := r.delivery()
		if err != nil {
			return nil, err
		}
		out[i] = d
	}
	return out, nil
}

// GetDelivery returns one line of the delivery log; ErrNotFound when unknown.
func (db *DB) GetDelivery(ctx context.Context, deliveryID string) (Delivery, error) {
	var r deliveryRow
	if err := db.g.WithContext(ctx).Where("delivery_id = ?", deliveryID).Take(&r).Error; err != nil {
		return Delivery{}, notFound(err, "delivery", deliveryID)
	}
	return r.delivery()
}

func (r deliveryRow) delivery() (Delivery, error) {
	d := Delivery{DeliveryID: r.DeliveryID, CallID: r.CallID, Event: r.Event, Status: r.Status,
		Attempts: r.Attempts, LastError: r.LastError, Delivered: r.Delivered, At: fromTS(r.At)}
	if err := json.Unmarshal([]byte(r.Fields), &d.Fields); err != nil {
		return Delivery{}, fmt.Errorf("delivery %s fields: %w", r.DeliveryID, err)
	}
	return d, nil
}
