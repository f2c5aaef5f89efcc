package sipua

import (
	"context"
	"time"

	"github.com/softphone/softphone/store"
)

// recoverDB is what the closing of calls cut off by a crash needs of the
// store (store.DB has it; stand-ins without it fall back to
// CloseOpenHistory, which publishes nothing).
type recoverDB interface {
	InterruptedHistory(ctx context.Context) ([]store.HistoryEntry, error)
	CloseInterrupted(ctx context.Context, e store.HistoryEntry, evs []store.OutboxEvent) (bool, error)
}

// OutboxInterrupted gives the phone the webhook sender's rendering of an
// event into outbox events (webhook.Sender.Outboxed): at the next start the
// call-ended of a call cut off by a crash is stored with the closing of its
// history entry, in one transaction, so it is neither lost nor sent twice
// by a crash during the start. Call it before Serve.
func (p *Phone) OutboxInterrupted(fn func(Event) []store.OutboxEvent) {
	p.mu.Lock()
	p.outboxOf = fn
	p.mu.Unlock()
}

// recoverInterrupted ends, at start, every call the last run left open
// (issue 14): its history entry is closed with reason interrupted, the
// webhook outbox gets its call-ended (in the same transaction), and the
// call-ended is published on the bus for /events and the counters, marked
// Recovered so the webhook sender does not queue it a second time. It runs
// before the history subscriber exists, which therefore never sees these.
func (p *Phone) recoverInterrupted(ctx context.Context) {
	rdb, ok := p.db.(recoverDB)
	if !ok {
		if n, err := p.db.CloseOpenHistory(ctx, ReasonCrashed, time.Now()); err != nil {
			p.log.Warn("closing history left open", "error", err)
		} else if n > 0 {
			p.log.Info("closed history entries left open by the last run", "n", n)
		}
		return
	}
	open, err := rdb.InterruptedHistory(ctx)
	if err != nil {
		p.log.Warn("closing history left open", "error", err)
		return
	}
	p.mu.Lock()
	outboxOf := p.outboxOf
	p.mu.Unlock()
	n := 0
	for _, h := range open {
		h.Reason = ReasonCrashed
		ev := Event{Kind: EventCallEnded, At: time.Now(), Call: interruptedCall(h), Recovered: true}
		var evs []store.OutboxEvent
		if outboxOf != nil {
			evs = outboxOf(ev)
		}
		closed, err := rdb.CloseInterrupted(ctx, h, evs)
		if err != nil {
			p.log.Warn("closing history left open", "call", h.CallID, "error", err)
			continue
		}
		if closed {
			p.bus.Publish(ev)
			n++
		}
	}
	if n > 0 {
		p.log.Info("ended calls left open by the last run", "n", n, "reason", ReasonCrashed)
	}
}

// interruptedCall is the last snapshot of a call cut off by a crash, from
// its history entry as InterruptedHistory closes it.
func interruptedCall(h store.HistoryEntry) Call {
	return Call{ID: h.CallID, SeanceID: h.SeanceID, AccountID: h.AccountID, Account: h.Account,
		Direction: Direction(h.Direction), State: StateEnded, Number: h.Number, Name: h.Name, URI: h.URI,
		Dialed: h.Dialed, StartedAt: h.StartedAt, StateAt: h.EndedAt, AnsweredAt: h.AnsweredAt,
		EndedAt: h.EndedAt, Reason: h.Reason, AnsweredBy: h.AnsweredBy, Outcome: h.Outcome, Declined: h.Declined}
}
