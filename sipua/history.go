package sipua

import (
	"context"
	"time"

	"github.com/softphone/softphone/store"
)

// writeHistory is the history subscriber: a lossless subscription, so every
// call leaves one entry, written when it starts and completed when it ends
// (a crash leaves it open; CloseOpenHistory closes it at the next start).
func (p *Phone) writeHistory(ctx context.Context, sub *Subscription) {
	defer sub.Close()
	for {
		select {
		case <-ctx.Done():
			// Drain what is already queued so a clean stop loses nothing.
			for {
				select {
				case e, ok := <-sub.C():
					if !ok {
						return
					}
					p.historyEvent(e)
				default:
					return
				}
			}
		case e, ok := <-sub.C():
			if !ok {
				return
			}
			p.historyEvent(e)
		}
	}
}

func (p *Phone) historyEvent(e Event) {
	if e.Kind != EventCallStarted && e.Kind != EventCallEnded {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	h := historyEntry(e.Call)
	if h.Name == "" {
		h.Name = p.contactName(h.Number)
	}
	var err error
	if e.Kind == EventCallStarted {
		err = p.db.StartHistory(ctx, h)
	} else {
		err = p.db.FinishHistory(ctx, h)
	}
	if err != nil {
		p.log.Error("history", "call", e.Call.ID, "event", e.Kind, "error", err)
	}
}

// historyEntry maps a call snapshot to its history entry (rest-api.md
// "Call history entry").
func historyEntry(c Call) store.HistoryEntry {
	h := store.HistoryEntry{CallID: c.ID, SeanceID: c.SeanceID, AccountID: c.AccountID, Account: c.Account,
		Direction: string(c.Direction), Number: c.Number, URI: c.URI, Name: c.Name, Dialed: c.Dialed,
		StartedAt: c.StartedAt, AnsweredAt: c.AnsweredAt, Declined: c.Declined, Reason: c.Reason,
		AnsweredBy: c.AnsweredBy, Open: c.State != StateEnded, Secure: c.Secure}
	if c.State == StateEnded {
		h.EndedAt = c.EndedAt
		h.Outcome = c.Outcome
		h.Answered = !c.AnsweredAt.IsZero()
		h.DurationS = c.TalkSeconds()
	}
	return h
}
