package webhook

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/store"
)

// inOrder checks that each call's events arrived as started, changes, ended,
// with callstate_ts never going back.
func inOrder(t *testing.T, hits []hit, calls map[string]int) {
	t.Helper()
	seen := map[string][]string{}
	last := map[string]string{}
	for _, h := range hits {
		id, ev := h.Fields["id"].(string), h.Fields["event"].(string)
		ts := h.Fields["callstate_ts"].(string)
		if len(ts) != len(last[id]) && last[id] != "" || ts < last[id] {
			t.Errorf("call %s: callstate_ts went back: %s after %s", id, ts, last[id])
		}
		last[id] = ts
		seen[id] = append(seen[id], ev)
	}
	for id, n := range calls {
		evs := seen[id]
		if len(evs) != n || evs[0] != "call-started" || evs[n-1] != "call-ended" {
			t.Errorf("call %s: %v", id, evs)
		}
		for _, e := range evs[1 : n-1] {
			if e != "call-state-changed" {
				t.Errorf("call %s: %v", id, evs)
			}
		}
	}
}

func fourEventCalls(bus *sipua.Bus, n int) map[string]int {
	calls := map[string]int{}
	for i := 0; i < n; i++ {
		pc := newCall(bus, sipua.DirOut, "100")
		pc.to(sipua.StateRingingOut, time.Second, nil)
		pc.answer(time.Second)
		pc.hangup(time.Second, sipua.ReasonRemoteHangup)
		calls[pc.c.ID] = 4
	}
	return calls
}

func TestReceiverDownThenBack(t *testing.T) {
	// A port where nothing listens: connections are refused until it comes up.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	r := newRig(t, settingsFor("http://"+addr+"/hook", "POST"), nil)
	calls := fourEventCalls(r.bus, 6)
	eventually(t, "failed attempts", func() bool { return r.cnt.failed.Load() >= 12 })
	if r.cnt.delivered.Load() != 0 {
		t.Fatal("delivered while down")
	}
	rc := &receiver{more: make(chan struct{}, 1)}
	ln, err = net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	rc.Server = httptest.NewUnstartedServer(http.HandlerFunc(rc.serve))
	rc.Listener = ln
	rc.Start()
	t.Cleanup(rc.Close)
	hits := rc.wait(t, 24)
	inOrder(t, hits, calls)
	eventually(t, "counters", func() bool { return r.cnt.delivered.Load() == 24 && r.outboxLen(t) == 0 })
	if rc.count() != 24 || r.cnt.dropped.Load() != 0 || r.outboxLen(t) != 0 {
		t.Errorf("got %d, dropped %d, left %d", rc.count(), r.cnt.dropped.Load(), r.outboxLen(t))
	}
	log, err := r.s.Deliveries(context.Background(), 100)
	if err != nil || len(log) != 24 {
		t.Fatalf("log %d %v", len(log), err)
	}
	retried, failures := 0, 0
	for _, d := range log {
		if !d.Delivered || d.Status != 200 {
			t.Errorf("log line %+v", d)
		}
		if d.Attempts > 1 {
			retried++
		}
		failures += d.Attempts - 1
	}
	if retried == 0 {
		t.Error("no delivery shows a retry")
	}
	if int64(failures) != r.cnt.failed.Load() {
		t.Errorf("webhooks_failed_total %d, failed attempts in the log %d", r.cnt.failed.Load(), failures)
	}
}

// Refusals (5xx, 4xx, a redirect) are failures and retried; Retry-After is honoured.
func TestRefusedRetriedAndCounted(t *testing.T) {
	var firstAt, secondAt time.Time
	rc := newReceiver(t, func(n int64, w http.ResponseWriter, r *http.Request) int {
		switch n {
		case 1:
			firstAt = time.Now()
			w.Header().Set("Retry-After", "1")
			return http.StatusServiceUnavailable
		case 2:
			secondAt = time.Now()
			w.Header().Set("Location", "http://127.0.0.1:1/elsewhere")
			return http.StatusFound
		case 3:
			return http.StatusBadRequest
		}
		return http.StatusNoContent
	})
	r := newRig(t, settingsFor(rc.URL, "POST"), nil)
	newCall(r.bus, sipua.DirIn, "5")
	h := rc.wait(t, 1)
	if secondAt.Sub(firstAt) < time.Second {
		t.Errorf("Retry-After 1 not honoured: retried after %s", secondAt.Sub(firstAt))
	}
	eventually(t, "counters", func() bool { return r.cnt.delivered.Load() == 1 })
	if r.cnt.failed.Load() != 3 || rc.n.Load() != 4 || h[0].Fields["event"] != "call-started" {
		t.Errorf("failed %d, requests %d", r.cnt.failed.Load(), rc.n.Load())
	}
	d, err := r.s.Deliveries(context.Background(), 1)
	if err != nil || len(d) != 1 || d[0].Attempts != 4 || d[0].Status != 204 {
		t.Errorf("log %+v %v", d, err)
	}
}

// A receiver that does not answer within the time-out is a failure, retried.
func TestTimeoutIsFailure(t *testing.T) {
	rc := newReceiver(t, func(n int64, w http.ResponseWriter, r *http.Request) int {
		if n == 1 {
			<-r.Context().Done() // stalls until the sender gives up
		}
		return http.StatusOK
	})
	r := newRig(t, settingsFor(rc.URL, "POST"), func(c *Config) { c.Timeout = 200 * time.Millisecond })
	newCall(r.bus, sipua.DirIn, "5")
	rc.wait(t, 1)
	eventually(t, "counters", func() bool { return r.cnt.delivered.Load() == 1 })
	if r.cnt.failed.Load() != 1 {
		t.Errorf("failed %d", r.cnt.failed.Load())
	}
	d, _ := r.s.Deliveries(context.Background(), 1)
	if len(d) != 1 || d[0].Attempts != 2 {
		t.Errorf("log %+v", d)
	}
}

// A stalled receiver never holds up Publish or the outbox: events keep being
// queued while every worker waits on it.
func TestStalledReceiverDoesNotBlockThePhone(t *testing.T) {
	release := make(chan struct{})
	rc := newReceiver(t, func(n int64, w http.ResponseWriter, r *http.Request) int {
		select {
		case <-release:
		case <-r.Context().Done():
		}
		return http.StatusOK
	})
	r := newRig(t, settingsFor(rc.URL, "POST"), nil)
	calls := fourEventCalls(r.bus, 50) // 200 Publish calls return at once
	eventually(t, "all 200 queued", func() bool { return r.outboxLen(t) == 200 })
	eventually(t, "workers all stalled", func() bool { return rc.n.Load() == DefaultWorkers })
	close(release)
	inOrder(t, rc.wait(t, 200), calls)
	if r.cnt.dropped.Load() != 0 {
		t.Errorf("dropped %d", r.cnt.dropped.Load())
	}
}

func TestOutboxFullDropsAndCounts(t *testing.T) {
	release := make(chan struct{})
	rc := newReceiver(t, func(n int64, w http.ResponseWriter, r *http.Request) int {
		select {
		case <-release:
		case <-r.Context().Done():
		}
		return http.StatusOK
	})
	r := newRig(t, settingsFor(rc.URL, "POST"), func(c *Config) { c.Capacity = 10 })
	fourEventCalls(r.bus, 5)
	eventually(t, "drops counted", func() bool { return r.cnt.dropped.Load() == 10 })
	if n := r.outboxLen(t); n != 10 {
		t.Errorf("outbox holds %d", n)
	}
	close(release)
	rc.wait(t, 10)
	eventually(t, "delivered", func() bool { return r.cnt.delivered.Load() == 10 })
	if rc.count() != 10 || r.cnt.dropped.Load() != 10 {
		t.Errorf("got %d dropped %d", rc.count(), r.cnt.dropped.Load())
	}
}

// Events lost by the bounded bus subscription count as dropped too; events
// that would not have been sent (other kinds, silenced kinds) take no room
// in it and are not counted.
func TestBusDropsCounted(t *testing.T) {
	rc := newReceiver(t, nil)
	bus := sipua.NewBus()
	cnt := &counters{}
	st := settingsFor(rc.URL, "POST")
	st.Webhooks.Silenced = []string{string(sipua.EventCallEnded)}
	s := New(Config{Settings: st, DB: openDB(t, t.TempDir()), Metrics: cnt, Poll: 10 * time.Millisecond})
	sub := bus.SubscribeOnly(2, false, s.Keep)
	defer sub.Close()
	s.Consume(sub)
	for i := 0; i < 5; i++ { // nobody reads yet: 3 of 5 are lost
		newCall(bus, sipua.DirIn, "1")
		bus.Publish(sipua.Event{Kind: sipua.EventCallEnded, Call: sipua.Call{ID: "x", State: sipua.StateEnded}})
		bus.Publish(sipua.Event{Kind: sipua.EventRegistration})
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = s.Serve(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	rc.wait(t, 2)
	eventually(t, "drops counted", func() bool { return cnt.dropped.Load() == 3 })
}

func TestGivenUpAfterMaxAge(t *testing.T) {
	r := newRig(t, settingsFor("http://127.0.0.1:1/", "POST"), func(c *Config) { c.MaxAge = 300 * time.Millisecond })
	newCall(r.bus, sipua.DirIn, "1")
	// The awaited moment is the log line: the outbox may be empty before it
	// (an event not yet written, or its outcome kept in memory until the
	// database takes it).
	var d []store.Delivery
	var err error
	eventually(t, "given up in the log", func() bool {
		d, err = r.s.Deliveries(context.Background(), 10)
		return err == nil && len(d) > 0
	})
	if len(d) != 1 || d[0].Delivered || !strings.Contains(d[0].LastError, "given up after") {
		t.Fatalf("log %+v %v", d, err)
	}
	if n := r.outboxLen(t); n != 0 || r.cnt.failed.Load() == 0 {
		t.Fatalf("outbox %d, failed %d after giving up", n, r.cnt.failed.Load())
	}
}

func TestApplyTakesEffectAtOnce(t *testing.T) {
	a, b := newReceiver(t, nil), newReceiver(t, nil)
	st := settingsFor(a.URL, "POST")
	r := newRig(t, st, nil)
	newCall(r.bus, sipua.DirIn, "1")
	a.wait(t, 1)
	st.Webhooks.URL, st.Webhooks.Method = b.URL, "GET"
	r.s.Apply(st)
	newCall(r.bus, sipua.DirIn, "2")
	if h := b.wait(t, 1)[0]; h.Method != "GET" {
		t.Errorf("method %s", h.Method)
	}
	st.Webhooks.Enabled = false // off: nothing is queued
	r.s.Apply(st)
	newCall(r.bus, sipua.DirIn, "3")
	eventually(t, "event read", func() bool { return r.s.handled.Load() == 3 })
	st.Webhooks.Enabled = true
	r.s.Apply(st)
	pc := newCall(r.bus, sipua.DirIn, "4")
	h := b.wait(t, 2)[1]
	q := h.RawQuery
	if !strings.Contains(q, "number=4") || !strings.Contains(q, pc.c.ID) {
		t.Errorf("after re-enabling got %s", q)
	}
	st.Integration.Enabled = false // the Integration module off: nothing either
	r.s.Apply(st)
	newCall(r.bus, sipua.DirIn, "5")
	eventually(t, "event read", func() bool { return r.s.handled.Load() == 5 })
	if err := r.s.Resend(context.Background(), "x"); err == nil {
		t.Error("resend while off")
	}
	eventually(t, "outbox empty", func() bool { return r.outboxLen(t) == 0 })
	if a.count() != 1 || b.count() != 2 {
		t.Errorf("a %d b %d left %d", a.count(), b.count(), r.outboxLen(t))
	}
}

func TestResend(t *testing.T) {
	rc := newReceiver(t, nil)
	r := newRig(t, settingsFor(rc.URL, "POST"), nil)
	newCall(r.bus, sipua.DirIn, "1")
	first := rc.wait(t, 1)[0]
	eventually(t, "logged", func() bool { d, _ := r.s.Deliveries(context.Background(), 10); return len(d) == 1 })
	d, _ := r.s.Deliveries(context.Background(), 10)
	if err := r.s.Resend(context.Background(), d[0].DeliveryID); err != nil {
		t.Fatal(err)
	}
	again := rc.wait(t, 2)[1]
	if string(again.Body) != string(first.Body) || again.Header.Get(DeliveryIDHeader) != first.Header.Get(DeliveryIDHeader) {
		t.Errorf("resent %s %v", again.Body, again.Header)
	}
	if err := r.s.Resend(context.Background(), "no-such-id"); err == nil {
		t.Error("resend of an unknown delivery")
	}
}
