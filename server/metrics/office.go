package metrics

import "github.com/prometheus/client_golang/prometheus"

// SubscriptionsFailed is the counter of SIP event subscriptions and
// publications (issue 19: busy lamps, presence, voicemail) that the PBX
// refused or that were lost (no answer, 481 on a refresh), by event package.
// It is served beside the thirteen counters of rest-api.md.
const SubscriptionsFailed = "sip_subscriptions_failed_total"

// subEvents are the label values, created at 0 so a scrape shows them all.
var subEvents = []string{"dialog", "presence", "message-summary"}

func newSubsFailed(reg *prometheus.Registry) *prometheus.CounterVec {
	v := prometheus.NewCounterVec(prometheus.CounterOpts{Name: SubscriptionsFailed,
		Help: "SIP subscriptions and publications (busy lamps, presence, voicemail) refused or lost, by event package."},
		[]string{"event"})
	reg.MustRegister(v)
	for _, e := range subEvents {
		v.WithLabelValues(e)
	}
	return v
}

func (m *Metrics) subscriptionFailed(event string) {
	known := false
	for _, e := range subEvents {
		known = known || e == event
	}
	if !known {
		event = "other" // label values stay a fixed, small set
	}
	m.subsFailed.WithLabelValues(event).Inc()
}

// SubscriptionFailures reads the failures counted for one event package.
func (m *Metrics) SubscriptionFailures(event string) float64 {
	fams, err := m.reg.Gather()
	if err != nil {
		return 0
	}
	for _, f := range fams {
		if f.GetName() != SubscriptionsFailed {
			continue
		}
		for _, mt := range f.GetMetric() {
			for _, lp := range mt.GetLabel() {
				if lp.GetName() == "event" && lp.GetValue() == event {
					return mt.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}
