package webhook

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/store"
)

// Consume hands the sender a bus subscription (bounded: drops there are
// counted as webhooks_dropped_total). Serve reads it; a subscription given
// after Serve started is read from then on. The caller closes it.
func (s *Sender) Consume(sub *sipua.Subscription) {
	s.subsMu.Lock()
	s.subs = append(s.subs, sub)
	s.subsMu.Unlock()
	select {
	case s.newSub <- struct{}{}:
	default:
	}
}

// read moves one subscription's call events into the outbox until ctx ends
// or the subscription closes; what is buffered at shutdown is still saved.
func (s *Sender) read(ctx context.Context, sub *sipua.Subscription) {
	var seen uint64
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			s.drain(sub, &seen)
			return
		case e, ok := <-sub.C():
			if !ok {
				s.busDrops(sub, &seen)
				return
			}
			s.busDrops(sub, &seen)
			s.enqueue(ctx, e)
		case <-tick.C:
			s.busDrops(sub, &seen)
		}
	}
}

// drain saves what is already buffered, without waiting for more.
func (s *Sender) drain(sub *sipua.Subscription, seen *uint64) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for {
		select {
		case e, ok := <-sub.C():
			if !ok {
				return
			}
			s.enqueue(ctx, e)
		default:
			s.busDrops(sub, seen)
			return
		}
	}
}

// busDrops counts events the subscription lost to a full buffer. Which kind
// they were is unknown, so every lost event counts (it may over-count events
// that would not have become webhooks; it never under-counts).
func (s *Sender) busDrops(sub *sipua.Subscription, seen *uint64) {
	d := sub.Dropped()
	for ; *seen < d; *seen++ {
		s.cfg.Metrics.WebhookDropped()
	}
}

// enqueue persists one event in the outbox when it is a wanted call event.
func (s *Sender) enqueue(ctx context.Context, e sipua.Event) {
	defer s.handled.Add(1)
	if !sipua.IsCallEvent(e.Kind) || !s.wants(string(e.Kind)) {
		return
	}
	p, _ := Payload(e)
	now := time.Now()
	ev := store.OutboxEvent{
		DeliveryID: uuid.NewString(), CallID: e.Call.ID, Event: string(e.Kind),
		Fields: p, NextAt: now, CreatedAt: now,
	}
	if err := s.put(ctx, ev); err != nil {
		s.dropped(err, ev)
	}
}

// put writes one event to the outbox and wakes the dispatcher.
func (s *Sender) put(ctx context.Context, ev store.OutboxEvent) error {
	s.wmu.Lock()
	ok, err := s.db.EnqueueOutbox(ctx, ev, s.cfg.Capacity)
	s.wmu.Unlock()
	if err != nil {
		return err
	}
	if !ok {
		return ErrQueueFull
	}
	s.poke()
	return nil
}

// dropped counts a lost event; the log says so for the first and then every
// thousandth, so a full queue cannot flood the log.
func (s *Sender) dropped(err error, ev store.OutboxEvent) {
	s.cfg.Metrics.WebhookDropped()
	if n := s.drops.Add(1); n == 1 || n%1000 == 0 {
		s.log.Warn("webhook event dropped", "event", ev.Event, "call", ev.CallID, "drops", n, "err", err)
	}
}
