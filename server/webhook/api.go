package webhook

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/store"
)

// TestResult is the receiver's answer to the test event.
type TestResult struct {
	Status int    // HTTP status
	Body   string // at most TestBodyMax bytes of the answer's body
}

// TestBodyMax bounds the part of the receiver's answer SendTest returns.
const TestBodyMax = 4096

// SendTest sends one event about a call that never happened, at once and not
// through the outbox, with the real headers (the keyring is read afresh), and
// returns the receiver's answer. It works while webhooks are switched off, so
// an address can be tried before it is enabled; it is not counted and not
// logged as a delivery. The event is a call-started of an incoming call
// ringing now, with fresh UUIDs, the number "test", and the header
// Webhook-Test: true. A non-2xx answer is a result, not an error; a refused
// connection or time-out is ErrSend.
func (s *Sender) SendTest(ctx context.Context) (TestResult, error) {
	s.refreshSecrets()
	s.mu.RLock()
	st := s.all
	s.mu.RUnlock()
	t := s.target()
	if t.url == "" {
		return TestResult{}, ErrNoURL
	}
	now := time.Now()
	call := sipua.Call{
		ID: uuid.NewString(), SeanceID: uuid.NewString(), Direction: sipua.DirIn,
		State: sipua.StateRingingIn, Number: "test", Name: "Softphone test event",
		URI: "sip:test@invalid", StartedAt: now, StateAt: now, Reason: sipua.ReasonNone,
	}
	for _, a := range st.Accounts { // the selected line, else the first enabled one
		if a.ID == st.SIP.SelectedAccount || (call.AccountID == "" && a.Enabled) {
			call.AccountID, call.Account = a.ID, a.Username+"@"+a.Domain
		}
	}
	p, _ := Payload(sipua.Event{Kind: sipua.EventCallStarted, At: now, Call: call})
	extra := http.Header{TestHeader: {"true"}}
	status, _, body, err := s.send(ctx, t, uuid.NewString(), p, extra, TestBodyMax)
	if status == 0 && err != nil {
		return TestResult{}, fmt.Errorf("test event: %w", err)
	}
	return TestResult{Status: status, Body: body}, nil
}

// Deliveries is the delivery log, newest first (limit 0: 100).
func (s *Sender) Deliveries(ctx context.Context, limit int) ([]store.Delivery, error) {
	d, err := s.db.Deliveries(ctx, limit)
	if err != nil {
		return nil, fmt.Errorf("webhook deliveries: %w", err)
	}
	return d, nil
}

// Resend queues the event of one line of the delivery log again, with its
// payload and delivery id unchanged (a receiver that saw it can skip it),
// behind any event of that call still queued. Its log line is replaced when
// it is done. ErrDisabled while webhooks are off; ErrQueueFull when full.
func (s *Sender) Resend(ctx context.Context, deliveryID string) error {
	if !s.enabled() {
		return fmt.Errorf("resend %s: %w", deliveryID, ErrDisabled)
	}
	d, err := s.db.GetDelivery(ctx, deliveryID)
	if err != nil {
		return fmt.Errorf("resend %s: %w", deliveryID, err)
	}
	now := time.Now()
	ev := store.OutboxEvent{DeliveryID: d.DeliveryID, CallID: d.CallID, Event: d.Event,
		Fields: maps.Clone(d.Fields), NextAt: now, CreatedAt: now}
	if err := s.put(ctx, ev); err != nil {
		if errors.Is(err, ErrQueueFull) {
			s.cfg.Metrics.WebhookDropped()
		}
		return fmt.Errorf("resend %s: %w", deliveryID, err)
	}
	return nil
}
