package metrics

import (
	"context"

	"github.com/softphone/softphone/sipua"
)

// Consume counts call and registration events read from sub until ctx is
// done or sub is closed. sub must be lossless (bus.Subscribe(n, true)):
// rest-api.md's counters must not miss a call (ARCHITECTURE.md, data flow 4).
//
//   - call-started: calls_incoming_total or calls_outgoing_total by direction;
//   - the first move of a call to active: calls_answered_total (a resume from
//     hold moves to active again and is not counted twice);
//   - call-ended: calls_missed/declined/failed_total by the call's Outcome;
//   - registration: registrations_succeeded/failed_total by OK/Failed.
func (m *Metrics) Consume(ctx context.Context, sub *sipua.Subscription) {
	answered := make(map[string]bool) // call id -> answer already counted
	sub.Each(ctx, func(e sipua.Event) { m.count(e, answered) })
}

// Tap counts the events of bus as Consume does, inside Publish (a bus tap:
// no goroutine woken per event, issue 20) until untap. Like a lossless
// subscription it misses no event published after it.
func (m *Metrics) Tap(bus *sipua.Bus) (untap func()) {
	answered := make(map[string]bool) // call id -> answer already counted; only touched under the bus lock
	return bus.Tap(nil, func(e sipua.Event) { m.count(e, answered) })
}

func (m *Metrics) count(e sipua.Event, answered map[string]bool) {
	switch e.Kind {
	case sipua.EventCallStarted:
		switch e.Call.Direction {
		case sipua.DirIn:
			m.callsIncoming.Inc()
		case sipua.DirOut:
			m.callsOutgoing.Inc()
		}
		m.answer(e.Call, answered)
	case sipua.EventCallStateChanged:
		m.answer(e.Call, answered)
	case sipua.EventCallEnded:
		if !answered[e.Call.ID] && e.Call.Outcome == sipua.OutcomeAnswered {
			// The move to active was never seen (it would have been counted):
			// count the answer from the outcome so the totals agree.
			m.callsAnswered.Inc()
		}
		delete(answered, e.Call.ID)
		switch e.Call.Outcome {
		case sipua.OutcomeMissed:
			m.callsMissed.Inc()
		case sipua.OutcomeDeclined:
			m.callsDeclined.Inc()
		case sipua.OutcomeFailed:
			m.callsFailed.Inc()
		}
	case sipua.EventSubscriptionFailed:
		m.subscriptionFailed(e.Office.Event)
	case sipua.EventRegistration:
		if e.Registration.OK {
			m.regOK.Inc()
		}
		if e.Registration.Failed {
			m.regFailed.Inc()
		}
	}
}

func (m *Metrics) answer(c sipua.Call, answered map[string]bool) {
	if answered[c.ID] {
		return
	}
	switch c.State {
	case sipua.StateActive, sipua.StateHold, sipua.StateOnHold, sipua.StateConference:
		answered[c.ID] = true
		m.callsAnswered.Inc()
	}
}
