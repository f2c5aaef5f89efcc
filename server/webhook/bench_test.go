package webhook

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/softphone/softphone/sipua"
)

// BenchmarkDelivery: events per second from the bus to a local receiver
// (POST, 8 workers, 4 events per call, real SQLite outbox). The subscription
// is lossless here so the figure is delivery, not bus drops.
func BenchmarkDelivery(b *testing.B) {
	rc := newReceiver(b, nil)
	bus := sipua.NewBus()
	cnt := &counters{}
	db := openDB(b, b.TempDir())
	// Room for every event of a long run (-benchtime 20000x): a full outbox
	// would drop events and the loop below would wait for them forever.
	s := New(Config{Settings: settingsFor(rc.URL, "POST"), DB: db, Metrics: cnt, Capacity: 1 << 30})
	sub := bus.Subscribe(DefaultBuffer, true)
	defer sub.Close()
	s.Consume(sub)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = s.Serve(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	n := max(b.N, 4)
	b.ResetTimer()
	start, cpu0 := time.Now(), cpuTime()
	for i := 0; i < n/4; i++ {
		pc := newCall(bus, sipua.DirOut, "100")
		pc.to(sipua.StateRingingOut, time.Second, nil)
		pc.answer(time.Second)
		pc.hangup(time.Second, sipua.ReasonRemoteHangup)
	}
	want := int64(n / 4 * 4)
	for cnt.delivered.Load() < want {
		time.Sleep(time.Millisecond)
	}
	b.StopTimer()
	b.ReportMetric(float64(want)/time.Since(start).Seconds(), "events/s")
	// CPU of the whole process (sender, SQLite and the receiver) per event:
	// a figure that does not depend on what else the machine is doing.
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(want), "cpu-µs/event")
}

// BenchmarkEnqueue: events from the subscription into the SQLite outbox
// (payload, then EnqueueOutboxBatch with its capacity check) as the reader
// writes them: alone (batch1, the first event after a quiet spell) and
// during a burst (batch64). cpu-µs/event is the process's CPU per event.
func BenchmarkEnqueue(b *testing.B) {
	for _, size := range []int{1, 64} {
		b.Run("batch"+strconv.Itoa(size), func(b *testing.B) {
			db := openDB(b, b.TempDir())
			s := New(Config{Settings: settingsFor("http://127.0.0.1:1/", "POST"), DB: db, Capacity: 1 << 30})
			r := &reader{s: s, timer: time.NewTimer(time.Hour)}
			pc := &phoneCall{c: sipua.Call{ID: "c", Direction: sipua.DirIn, State: sipua.StateRingingIn, StartedAt: t0, StateAt: t0}}
			e := sipua.Event{Kind: sipua.EventCallStarted, At: t0, Call: pc.c}
			ctx := context.Background()
			b.ResetTimer()
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				r.take(e)
				if err := db.JournalOutbox(r.batch[len(r.batch)-1:]); err != nil {
					b.Fatal(err)
				}
				if len(r.batch) == size {
					r.flush(ctx)
				}
			}
			r.flush(ctx)
			b.StopTimer()
			b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/1e3/float64(b.N), "cpu-µs/event")
		})
	}
}

// BenchmarkPublish: what the call path pays: Bus.Publish with the webhook
// sender subscribed and running, its reader persisting behind it, and every
// worker stuck on a receiver that never answers.
func BenchmarkPublish(b *testing.B) {
	release := make(chan struct{})
	rc := newReceiver(b, func(n int64, w http.ResponseWriter, r *http.Request) int {
		select {
		case <-release:
		case <-r.Context().Done():
		}
		return http.StatusOK
	})
	defer close(release)
	db := openDB(b, b.TempDir())
	s := New(Config{Settings: settingsFor(rc.URL, "POST"), DB: db, Capacity: 1 << 30, Timeout: time.Hour})
	bus := sipua.NewBus()
	sub := bus.Subscribe(DefaultBuffer, false)
	defer sub.Close()
	s.Consume(sub)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = s.Serve(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	c := sipua.Call{Direction: sipua.DirIn, State: sipua.StateRingingIn, StartedAt: t0, StateAt: t0}
	ids := make([]string, 64) // 64 calls: all 8 workers end up stuck
	for i := range ids {
		ids[i] = strconv.Itoa(i)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t := time.Now()
		c.ID = ids[i%len(ids)]
		bus.Publish(sipua.Event{Kind: sipua.EventCallStateChanged, Call: c})
		lat = append(lat, time.Since(t))
		if i%256 == 0 { // pace below the reader's rate so the buffer does not fill
			for len(sub.C()) > DefaultBuffer/2 {
				time.Sleep(100 * time.Microsecond)
			}
		}
	}
	b.StopTimer()
	report(b, lat)
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func report(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	q := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Nanoseconds()) / 1e3 }
	b.ReportMetric(q(0.5), "p50-µs")
	b.ReportMetric(q(0.99), "p99-µs")
}
