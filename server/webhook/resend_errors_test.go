package webhook

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/store"
)

// TestResendRefusalsAreTheStores: the refusals of Resend are the store's
// errors, which the pages word without importing this package (server/web's
// TestResendRefusalsInThePagesLanguage): not in the log, webhooks off, the
// queue full. Real SQLite and a real receiver.
func TestResendRefusalsAreTheStores(t *testing.T) {
	rc := newReceiver(t, nil)
	st := settingsFor(rc.URL, "POST")
	r := newRig(t, st, func(c *Config) { c.Capacity = 1 })
	ctx := context.Background()
	newCall(r.bus, sipua.DirIn, "1")
	rc.wait(t, 1)
	eventually(t, "logged", func() bool { d, _ := r.s.Deliveries(ctx, 10); return len(d) == 1 })
	eventually(t, "outbox empty", func() bool { return r.outboxLen(t) == 0 })
	d, _ := r.s.Deliveries(ctx, 10)
	if err := r.s.Resend(ctx, "no-such-id"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown delivery: %v", err)
	}
	// The one place of the outbox taken by an event that waits a day.
	if _, err := r.db.EnqueueOutboxBatch(ctx, []store.OutboxEvent{{DeliveryID: "waits", CallID: "c", Event: "call-started",
		Fields: map[string]string{}, NextAt: time.Now().Add(24 * time.Hour), CreatedAt: time.Now()}}, 1); err != nil {
		t.Fatal(err)
	}
	if err := r.s.Resend(ctx, d[0].DeliveryID); !errors.Is(err, store.ErrOutboxFull) {
		t.Errorf("queue full: %v", err)
	}
	st.Webhooks.Enabled = false
	r.s.Apply(st)
	if err := r.s.Resend(ctx, d[0].DeliveryID); !errors.Is(err, store.ErrWebhooksOff) {
		t.Errorf("webhooks off: %v", err)
	}
}
