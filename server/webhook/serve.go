package webhook

import (
	"context"
	"sync"

	"github.com/softphone/softphone/sipua"
)

// Serve reads the subscriptions given to Consume into the outbox and delivers
// what is queued, until ctx ends. On the way out it saves what the
// subscriptions already hold and waits for deliveries in flight (cancelled
// ones stay queued for the next start). It returns nil after a clean stop.
func (s *Sender) Serve(ctx context.Context) error {
	s.reportReplay()
	var wg sync.WaitGroup
	reading := make(map[*sipua.Subscription]bool)
	start := func() {
		s.subsMu.Lock()
		defer s.subsMu.Unlock()
		for _, sub := range s.subs {
			if !reading[sub] {
				reading[sub] = true
				wg.Go(func() { s.read(ctx, sub) })
			}
		}
	}
	start()
	wg.Go(func() { s.dispatch(ctx) })
	for {
		select {
		case <-ctx.Done():
			wg.Wait()
			return nil
		case <-s.newSub:
			start()
		}
	}
}

// reportReplay counts the events the journal replay at open dropped beyond
// the outbox's capacity in webhooks_dropped_total, and logs what happened.
func (s *Sender) reportReplay() {
	j, ok := s.db.(interface{ JournalReplay() (int, error) })
	if !ok {
		return
	}
	dropped, err := j.JournalReplay()
	if err != nil {
		s.log.Error("webhook journal not replayed; kept for the next start", "err", err)
	}
	if dropped > 0 {
		s.log.Warn("webhook events of the journal dropped: the outbox was full", "dropped", dropped, "capacity", s.cfg.Capacity)
		for range dropped {
			s.cfg.Metrics.WebhookDropped()
		}
	}
}
