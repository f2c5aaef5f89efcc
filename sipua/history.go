package sipua

import (
	"context"

	"github.com/softphone/softphone/store"
)

// writeHistory is the history subscriber: a lossless subscription, so every
// call leaves one entry, written when it starts, answered when it is
// answered, kept alive by a heartbeat and completed when it ends (a crash
// leaves it open; recoverInterrupted closes it at the next start). Writes
// that fail wait in memory (history_live.go).
func (p *Phone) writeHistory(ctx context.Context, sub *Subscription) {
	defer sub.Close()
	w := newHistoryWriter(p)
	defer w.beat.Stop()
	for {
		select {
		case <-ctx.Done():
			// Drain what is already queued so a clean stop loses nothing.
			for {
				select {
				case e, ok := <-sub.C():
					if !ok {
						w.flushGroup()
						w.flush()
						w.indexSearch()
						return
					}
					w.event(e)
					if len(w.group) >= maxHistoryGroup {
						w.flushGroup()
					}
				default:
					w.flushGroup()
					w.flush()
					w.indexSearch()
					return
				}
			}
		case e, ok := <-sub.C():
			if !ok {
				return
			}
			w.event(e)
			// The events queued behind it are written with it: one
			// transaction when there are enough (store.WriteHistory).
			// Nothing waits for more to come.
			w.takeQueued(sub)
			w.handled()
			w.flushGroup()
		case <-w.beat.C:
			w.beatFired()
		case <-w.retry.C:
			w.flush()
			w.wantBeat() // what it wrote is indexed at the next beat
		}
	}
}

// historyEvents are the events the history subscriber writes from.
func historyEvents(e Event) bool {
	return e.Kind == EventCallStarted || e.Kind == EventCallStateChanged || e.Kind == EventCallEnded
}

// takeQueued adds the writes of the events already queued on sub, without
// waiting for any.
func (w *historyWriter) takeQueued(sub *Subscription) {
	for len(w.group) < maxHistoryGroup {
		select {
		case e, ok := <-sub.C():
			if !ok {
				return
			}
			w.event(e)
		default:
			return
		}
	}
}

// historyEntry maps a call snapshot to its history entry (rest-api.md
// "Call history entry").
func historyEntry(c Call) store.HistoryEntry {
	h := store.HistoryEntry{CallID: c.ID, SeanceID: c.SeanceID, AccountID: c.AccountID, Account: c.Account,
		Direction: string(c.Direction), Number: c.Number, URI: c.URI, Name: c.Name, Dialed: c.Dialed,
		StartedAt: c.StartedAt, AnsweredAt: c.AnsweredAt, Declined: c.Declined, Reason: c.Reason,
		AnsweredBy: c.AnsweredBy, Open: c.State != StateEnded, Recording: c.RecordingID,
		Secure: c.Secure, SIPStatus: c.SIPStatus}
	if c.State == StateEnded {
		h.EndedAt = c.EndedAt
		h.Outcome = c.Outcome
		h.Answered = !c.AnsweredAt.IsZero()
		h.DurationS = c.TalkSeconds()
	}
	return h
}
