package metrics

import (
	"testing"
	"time"

	"github.com/softphone/softphone/sipua"
)

// TestSubscriptionFailuresCounted: each failed subscription or publication
// the phone reports counts once under its event package.
func TestSubscriptionFailuresCounted(t *testing.T) {
	m := New()
	bus, stop := consuming(m)
	for _, ev := range []string{"dialog", "dialog", "message-summary", "bogus"} {
		bus.Publish(sipua.Event{Kind: sipua.EventSubscriptionFailed, Office: sipua.OfficeChange{Event: ev}})
	}
	deadline := time.Now().Add(5 * time.Second)
	for m.SubscriptionFailures("other") != 1 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	stop()
	if d, mw, p, o := m.SubscriptionFailures("dialog"), m.SubscriptionFailures("message-summary"),
		m.SubscriptionFailures("presence"), m.SubscriptionFailures("other"); d != 2 || mw != 1 || p != 0 || o != 1 {
		t.Errorf("dialog %v, message-summary %v, presence %v, other %v; want 2 1 0 1", d, mw, p, o)
	}
	if len(Names()) != 13 {
		t.Errorf("the spec's counters are %d, want 13", len(Names()))
	}
}
