package webhook

import (
	"context"
	"errors"
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

// Writing to the outbox is batched under load: the first event after a
// quiet spell goes into the outbox at once; while events keep coming they go
// in together at most every coalesceWindow (or once maxBatch wait). One
// INSERT of many rows costs a fraction of as many single INSERTs (see
// store.BenchmarkEnqueueOutboxBatch), and that CPU is what a burst of calls
// competes with on a small machine (bench/stall). Events waiting for their
// batch are already in the store's outbox journal (one append each), so a
// kill -9 loses none of them: the next start puts them into the outbox.
// (Batching without the journal lost the last events of a call to kill -9;
// TestKillDuringCallKeepsHistoryAndWebhooks caught it.)
const (
	coalesceWindow = 100 * time.Millisecond
	maxBatch       = 256
)

// reader is the state of one subscription's reader goroutine.
type reader struct {
	s     *Sender
	sub   *sipua.Subscription
	seen  uint64              // subscription drops already counted
	batch []store.OutboxEvent // wanted events not yet in the outbox
	read  uint64              // events read since the last write
	last  time.Time           // the last write
	timer *time.Timer         // the next write, while armed
	armed bool
	retry storeBackoff // while the outbox cannot be written: the batch waits (consume_retry.go)
	rlog  rateLog
}

// Subscribe is the sender's subscription to bus: bounded (DefaultBuffer), and
// only for the events that would be queued now, so the events it loses to a
// full buffer (counted as webhooks_dropped_total) are all events that would
// have been sent. Give it to Consume.
func (s *Sender) Subscribe(bus *sipua.Bus) *sipua.Subscription {
	return bus.SubscribeOnly(DefaultBuffer, false, s.Keep)
}

// Keep tells whether an event would be queued now: a call event of a kind
// not silenced, while webhooks are on. A call-ended marked Recovered is in
// the outbox already (recovered.go); it comes through only to wake the
// dispatcher, which no longer looks at the outbox every second (sleep.go).
func (s *Sender) Keep(e sipua.Event) bool {
	return sipua.IsCallEvent(e.Kind) && s.wants(string(e.Kind))
}

// read moves one subscription's call events into the outbox until ctx ends
// or the subscription closes; what is buffered at shutdown is still saved.
func (s *Sender) read(ctx context.Context, sub *sipua.Subscription) {
	r := &reader{s: s, sub: sub, timer: time.NewTimer(time.Hour)}
	r.timer.Stop()
	for {
		select {
		case <-ctx.Done():
			r.drain()
			return
		case e, ok := <-sub.C():
			if !ok {
				r.flush(context.Background())
				s.busDrops(sub, &r.seen)
				return
			}
			from := len(r.batch)
			r.take(e)
			r.takeWaiting()
			if r.retry.failing() {
				r.bound() // before the journal: what it drops was never journaled
				from = min(from, len(r.batch))
			}
			s.busDrops(sub, &r.seen)
			journaled := true
			if len(r.batch) > from {
				if err := s.db.JournalOutbox(r.batch[from:]); err != nil {
					if !errors.Is(err, store.ErrJournalFull) && !r.retry.failing() {
						r.rlog.fail(s.log, "webhook events written straight to the outbox", err)
					}
					journaled = false
				}
			}
			switch {
			case r.retry.failing():
				// The outbox cannot be written: the batch waits in memory
				// (bounded by the capacity) for the retry timer.
			case !journaled || len(r.batch) == 0 || len(r.batch) >= maxBatch || time.Since(r.last) >= coalesceWindow:
				r.flush(ctx)
			case !r.armed:
				r.timer.Reset(time.Until(r.last.Add(coalesceWindow)))
				r.armed = true
			}
		case <-r.timer.C:
			r.armed = false
			r.flush(ctx)
		}
	}
}

// take keeps e for the next write when it is a wanted call event. Whether it
// is wanted is decided now, as it is read.
func (r *reader) take(e sipua.Event) {
	r.read++
	if !r.s.Keep(e) { // asked again: the settings may have changed since Publish
		return
	}
	if e.Recovered { // stored with its history entry before it was published
		r.s.poke()
		return
	}
	p, _ := Payload(e)
	now := time.Now()
	r.batch = append(r.batch, store.OutboxEvent{
		DeliveryID: uuid.NewString(), CallID: e.Call.ID, Event: string(e.Kind),
		Fields: p, NextAt: now, CreatedAt: now,
	})
}

// takeWaiting takes what the subscription already holds, without waiting,
// up to a full batch.
func (r *reader) takeWaiting() {
	for len(r.batch) < maxBatch {
		select {
		case e, ok := <-r.sub.C():
			if !ok {
				return
			}
			r.take(e)
		default:
			return
		}
	}
}

// drain saves what is already buffered, without waiting for more.
func (r *reader) drain() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for {
		r.takeWaiting()
		if len(r.batch) < maxBatch {
			break
		}
		r.flush(ctx)
	}
	r.flush(ctx)
	r.s.busDrops(r.sub, &r.seen)
}

// flush puts the batch into the outbox in one go and wakes the dispatcher;
// what does not fit (the outbox is full) or cannot be written is dropped and
// counted. The events read are counted as handled only now.
func (r *reader) flush(ctx context.Context) {
	s := r.s
	if r.armed {
		r.timer.Stop()
		r.armed = false
	}
	if len(r.batch) > 0 {
		s.wmu.Lock()
		n, err := s.db.EnqueueJournaled(ctx, r.batch, s.cfg.Capacity)
		s.wmu.Unlock()
		s.noteWrite(err)
		if err != nil && ctx.Err() == nil {
			r.failed(err) // the batch stays, and is tried again after a wait
			return
		}
		r.recovered()
		if err == nil {
			err = ErrQueueFull
		}
		for _, ev := range r.batch[n:] {
			s.dropped(err, ev)
		}
		if n > 0 {
			s.poke()
		}
		r.last = time.Now()
	}
	clear(r.batch)
	r.batch = r.batch[:0]
	s.handled.Add(r.read)
	r.read = 0
}

// busDrops counts events the subscription lost to a full buffer. With the
// subscription of Subscribe these are all events that would have been sent;
// a plain subscription given to Consume counts every event it lost.
func (s *Sender) busDrops(sub *sipua.Subscription, seen *uint64) {
	d := sub.Dropped()
	for ; *seen < d; *seen++ {
		s.cfg.Metrics.WebhookDropped()
	}
}

// put writes one event to the outbox at once and wakes the dispatcher.
func (s *Sender) put(ctx context.Context, ev store.OutboxEvent) error {
	s.wmu.Lock()
	n, err := s.db.EnqueueOutboxBatch(ctx, []store.OutboxEvent{ev}, s.cfg.Capacity)
	s.wmu.Unlock()
	if err != nil {
		return err
	}
	if n == 0 {
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
