package webhook

import (
	"time"

	"github.com/google/uuid"
	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/store"
)

// Outboxed renders e as the outbox events it makes now: one when webhooks
// are on and its kind is not silenced, else none. The phone stores them with
// the closing of a call a crash cut off, in one transaction
// (sipua.Phone.OutboxInterrupted), which is why the subscription's copy,
// marked Recovered, is not queued again: it only wakes the dispatcher.
func (s *Sender) Outboxed(e sipua.Event) []store.OutboxEvent {
	if !sipua.IsCallEvent(e.Kind) || !s.wants(string(e.Kind)) {
		return nil
	}
	p, _ := Payload(e)
	now := time.Now()
	return []store.OutboxEvent{{DeliveryID: uuid.NewString(), CallID: e.Call.ID, Event: string(e.Kind),
		Fields: p, NextAt: now, CreatedAt: now}}
}

// The outbox's default capacity is the store's journal bound: this does not
// compile when they differ (a negative constant is no uint).
const _ = uint(DefaultCapacity-store.OutboxCapacity) + uint(store.OutboxCapacity-DefaultCapacity)
