package metrics

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics holds the counters of rest-api.md "Counters (GET /metrics)".
type Metrics struct {
	reg *prometheus.Registry

	callsIncoming, callsOutgoing, callsAnswered prometheus.Counter
	callsMissed, callsDeclined, callsFailed     prometheus.Counter
	regOK, regFailed                            prometheus.Counter
	whDelivered, whFailed, whDropped            prometheus.Counter
	apiRequests, apiRefused                     prometheus.Counter
	subsFailed                                  *prometheus.CounterVec // issue 19, beside the spec's thirteen
}

// Names and help texts, exactly as rest-api.md lists them.
var counterSpecs = []struct{ name, help string }{
	{"calls_incoming_total", "Incoming calls received."},
	{"calls_outgoing_total", "Outgoing calls placed."},
	{"calls_answered_total", "Calls answered."},
	{"calls_missed_total", "Incoming calls not answered."},
	{"calls_declined_total", "Calls rejected here or by the other side."},
	{"calls_failed_total", "Calls that could not be set up."},
	{"registrations_succeeded_total", "Successful SIP registrations."},
	{"registrations_failed_total", "SIP registrations refused or timed out."},
	{"webhooks_delivered_total", "Webhooks accepted by the receiver."},
	{"webhooks_failed_total", "Webhooks refused or not delivered."},
	{"webhooks_dropped_total", "Webhooks discarded because the queue was full."},
	{"api_requests_total", "Requests handled by the interface."},
	{"api_requests_refused_total", "Refused requests: wrong token, group off, or unknown path."},
}

// Names lists the counter names in the order of the spec.
func Names() []string {
	out := make([]string, len(counterSpecs))
	for i, c := range counterSpecs {
		out[i] = c.name
	}
	return out
}

// New returns the counters, registered on a registry of their own.
func New() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	targets := []*prometheus.Counter{
		&m.callsIncoming, &m.callsOutgoing, &m.callsAnswered,
		&m.callsMissed, &m.callsDeclined, &m.callsFailed,
		&m.regOK, &m.regFailed,
		&m.whDelivered, &m.whFailed, &m.whDropped,
		&m.apiRequests, &m.apiRefused,
	}
	for i, spec := range counterSpecs {
		c := prometheus.NewCounter(prometheus.CounterOpts{Name: spec.name, Help: spec.help})
		m.reg.MustRegister(c)
		*targets[i] = c
	}
	m.subsFailed = newSubsFailed(m.reg)
	return m
}

// Registry is the registry holding the counters (and nothing else).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the counters in the Prometheus text exposition format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// APIRequest counts one request handled by the API; refused ones also count
// in api_requests_refused_total.
func (m *Metrics) APIRequest(refused bool) {
	m.apiRequests.Inc()
	if refused {
		m.apiRefused.Inc()
	}
}

// WebhookDelivered counts a webhook accepted by its receiver.
func (m *Metrics) WebhookDelivered() { m.whDelivered.Inc() }

// WebhookFailed counts a webhook refused by its receiver or not delivered.
func (m *Metrics) WebhookFailed() { m.whFailed.Inc() }

// WebhookDropped counts a webhook discarded because the queue was full.
func (m *Metrics) WebhookDropped() { m.whDropped.Inc() }

// Beyond the spec's table, counters read from the phone's parts (issue 12):
// their values live where they are counted, so they are read at scrape time.
const (
	SIPRefusedName = "sip_requests_refused_total"
	SIPRefusedHelp = "SIP requests refused because of who sent them (sip.accept_calls_from)."
	RTPStrayName   = "rtp_packets_stray_total"
	RTPStrayHelp   = "RTP packets dropped because they came from neither the far end's SDP address nor its SIP address."
)

// AddCounterFunc serves a counter whose value f reads (for example the
// phone's RefusedRequests).
func (m *Metrics) AddCounterFunc(name, help string, f func() uint64) {
	m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help},
		func() float64 { return float64(f()) }))
}
