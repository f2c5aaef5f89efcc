package metrics

import (
	"context"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/sipua"
)

func TestThirteenCountersWithHelp(t *testing.T) {
	m := New()
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	res, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	text := string(body)
	if len(Names()) != 13 {
		t.Fatalf("%d counters", len(Names()))
	}
	for _, spec := range counterSpecs {
		if !strings.Contains(text, "# HELP "+spec.name+" "+spec.help+"\n") {
			t.Errorf("no help for %s", spec.name)
		}
		if !strings.Contains(text, "# TYPE "+spec.name+" counter\n") {
			t.Errorf("%s is not a counter", spec.name)
		}
		if !strings.Contains(text, "\n"+spec.name+" 0\n") {
			t.Errorf("%s not at 0", spec.name)
		}
	}
	if strings.Contains(text, "go_goroutines") {
		t.Error("global registry leaked into ours")
	}
}

func call(id string, dir sipua.Direction, st sipua.CallState, outcome string) sipua.Call {
	return sipua.Call{ID: id, Direction: dir, State: st, Outcome: outcome}
}

// publishDay publishes a day's calls and registrations; wantDay and
// gotDay are the counts they make.
func publishDay(bus *sipua.Bus) {
	pub := func(k sipua.EventKind, c sipua.Call) { bus.Publish(sipua.Event{Kind: k, Call: c}) }
	// answered incoming call, held and resumed: one answer
	pub(sipua.EventCallStarted, call("a", sipua.DirIn, sipua.StateRingingIn, ""))
	pub(sipua.EventCallStateChanged, call("a", sipua.DirIn, sipua.StateActive, ""))
	pub(sipua.EventCallStateChanged, call("a", sipua.DirIn, sipua.StateHold, ""))
	pub(sipua.EventCallStateChanged, call("a", sipua.DirIn, sipua.StateActive, ""))
	pub(sipua.EventCallEnded, call("a", sipua.DirIn, sipua.StateEnded, sipua.OutcomeAnswered))
	// missed incoming
	pub(sipua.EventCallStarted, call("b", sipua.DirIn, sipua.StateRingingIn, ""))
	pub(sipua.EventCallEnded, call("b", sipua.DirIn, sipua.StateEnded, sipua.OutcomeMissed))
	// declined outgoing, failed outgoing
	pub(sipua.EventCallStarted, call("c", sipua.DirOut, sipua.StateDialing, ""))
	pub(sipua.EventCallEnded, call("c", sipua.DirOut, sipua.StateEnded, sipua.OutcomeDeclined))
	pub(sipua.EventCallStarted, call("d", sipua.DirOut, sipua.StateDialing, ""))
	pub(sipua.EventCallEnded, call("d", sipua.DirOut, sipua.StateEnded, sipua.OutcomeFailed))
	// mute changes nothing
	pub(sipua.EventCallUpdated, call("e", sipua.DirOut, sipua.StateActive, ""))
	bus.Publish(sipua.Event{Kind: sipua.EventRegistration, Registration: sipua.Registration{OK: true}})
	bus.Publish(sipua.Event{Kind: sipua.EventRegistration, Registration: sipua.Registration{Failed: true}})
	bus.Publish(sipua.Event{Kind: sipua.EventRegistration, Registration: sipua.Registration{State: "registering"}})
}

var wantDay = map[string]float64{"incoming": 2, "outgoing": 2, "answered": 1, "missed": 1, "declined": 1,
	"failed": 1, "regok": 1, "regfail": 1}

func gotDay(m *Metrics) map[string]float64 {
	return map[string]float64{
		"incoming": m.Value("calls_incoming_total"), "outgoing": m.Value("calls_outgoing_total"),
		"answered": m.Value("calls_answered_total"), "missed": m.Value("calls_missed_total"),
		"declined": m.Value("calls_declined_total"), "failed": m.Value("calls_failed_total"),
		"regok": m.Value("registrations_succeeded_total"), "regfail": m.Value("registrations_failed_total"),
	}
}

func TestConsumeCountsCallsAndRegistrations(t *testing.T) {
	m := New()
	bus, stop := consuming(m)
	publishDay(bus)
	// The consumer runs on its own goroutine and there is no event telling
	// it has caught up: poll with a deadline.
	deadline := time.Now().Add(5 * time.Second)
	for !maps.Equal(gotDay(m), wantDay) {
		if time.Now().After(deadline) {
			t.Fatalf("counts %v, want %v", gotDay(m), wantDay)
		}
		time.Sleep(5 * time.Millisecond)
	}
	stop()
}

// consuming runs m.Consume on a new bus's lossless subscription until stop,
// which waits for it to return.
func consuming(m *Metrics) (bus *sipua.Bus, stop func()) {
	bus = sipua.NewBus()
	sub := bus.Subscribe(1, true)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { m.Consume(ctx, sub); close(done) }()
	return bus, func() {
		cancel()
		<-done
		sub.Close()
	}
}

// Tap counts as Consume does, by the time each Publish returns.
func TestTapCountsCalls(t *testing.T) {
	m := New()
	bus := sipua.NewBus()
	untap := m.Tap(bus)
	publishDay(bus)
	if got := gotDay(m); !maps.Equal(got, wantDay) {
		t.Errorf("counts %v, want %v", got, wantDay)
	}
	untap()
	bus.Publish(sipua.Event{Kind: sipua.EventCallStarted, Call: call("c", sipua.DirIn, sipua.StateRingingIn, "")})
	if got := m.Value("calls_incoming_total"); got != 2 {
		t.Errorf("after untap calls_incoming_total = %v, want 2", got)
	}
}

func TestAPIAndWebhookCounters(t *testing.T) {
	m := New()
	m.APIRequest(false)
	m.APIRequest(true)
	m.WebhookDelivered()
	m.WebhookFailed()
	m.WebhookFailed()
	m.WebhookDropped()
	for c, want := range map[string]float64{"api": 2, "refused": 1, "deliv": 1, "failed": 2, "dropped": 1} {
		var got float64
		switch c {
		case "api":
			got = m.Value("api_requests_total")
		case "refused":
			got = m.Value("api_requests_refused_total")
		case "deliv":
			got = m.Value("webhooks_delivered_total")
		case "failed":
			got = m.Value("webhooks_failed_total")
		case "dropped":
			got = m.Value("webhooks_dropped_total")
		}
		if got != want {
			t.Errorf("%s = %v, want %v", c, got, want)
		}
	}
}
