package webhook

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/store"
)

// fullDisk is the real store whose outcome writes fail while full is set,
// as they do on a full disk.
type fullDisk struct {
	*store.DB
	full atomic.Bool
}

func (f *fullDisk) OutboxDone(ctx context.Context, seq int64, status int, ok bool, errText string) error {
	if f.full.Load() {
		return fmt.Errorf("outbox done %d: %w", seq, syscall.ENOSPC)
	}
	return f.DB.OutboxDone(ctx, seq, status, ok, errText)
}

func (f *fullDisk) OutboxAttempt(ctx context.Context, seq int64, status int, errText string, next time.Time) error {
	if f.full.Load() {
		return fmt.Errorf("outbox attempt %d: %w", seq, syscall.ENOSPC)
	}
	return f.DB.OutboxAttempt(ctx, seq, status, errText, next)
}

func fullDiskRig(t *testing.T, rc *receiver, retryBase time.Duration) (*rig, *fullDisk) {
	t.Helper()
	r := &rig{bus: sipua.NewBus(), db: openDB(t, t.TempDir()), cnt: &counters{}}
	fd := &fullDisk{DB: r.db}
	fd.full.Store(true)
	r.s = New(Config{Settings: settingsFor(rc.URL, "POST"), DB: fd, Metrics: r.cnt,
		RetryBase: retryBase, RetryMax: 4 * retryBase, Poll: 10 * time.Millisecond})
	r.sub = r.bus.Subscribe(DefaultBuffer, false)
	r.s.Consume(r.sub)
	r.start()
	t.Cleanup(r.stop)
	return r, fd
}

// TestDeliveredMarkNotStoredNoResend: the event is delivered but its
// "delivered" mark cannot be written (issue 14: one event was sent 834
// times in 10 s). It is not sent again while the mark waits in memory, and
// once the disk has room the mark is written and the outbox empties.
func TestDeliveredMarkNotStoredNoResend(t *testing.T) {
	rc := newReceiver(t, nil)
	r, fd := fullDiskRig(t, rc, time.Second)
	newCall(r.bus, sipua.DirIn, "200")
	rc.wait(t, 1)
	// The dispatcher looks at the outbox every 10 ms: a second of that
	// re-sent the event about a hundred times before.
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
		if n := rc.count(); n != 1 {
			t.Fatalf("event sent %d times while its mark could not be stored", n)
		}
		time.Sleep(10 * time.Millisecond) // sampling the count over the second
	}
	if r.outboxLen(t) != 1 {
		t.Fatal("the event left the outbox although its mark was not written")
	}
	fd.full.Store(false)
	eventually(t, "mark written once the disk has room", func() bool { return r.outboxLen(t) == 0 })
	if n := rc.count(); n != 1 {
		t.Fatalf("event sent %d times", n)
	}
}

// TestFailedAttemptNotStoredKeepsSchedule: the receiver refuses, and the
// attempt's record (with its next try) cannot be written: the retries still
// follow the backoff (2.5-5 s... here 100-200 ms, doubling), not the poll.
func TestFailedAttemptNotStoredKeepsSchedule(t *testing.T) {
	rc := newReceiver(t, func(int64, http.ResponseWriter, *http.Request) int { return http.StatusServiceUnavailable })
	r, fd := fullDiskRig(t, rc, 200*time.Millisecond)
	newCall(r.bus, sipua.DirIn, "200")
	eventually(t, "first attempt", func() bool { return rc.n.Load() >= 1 })
	start := time.Now()
	eventually(t, "a few retries", func() bool { return rc.n.Load() >= 4 })
	// Attempts 2, 3 and 4 wait at least 100, 200 and 400 ms (equal jitter).
	if took := time.Since(start); took < 700*time.Millisecond {
		t.Fatalf("4 attempts within %v: retries did not follow the backoff", took)
	}
	fd.full.Store(false)
	eventually(t, "attempt recorded", func() bool {
		due, _ := r.db.DueOutbox(context.Background(), time.Now().Add(time.Hour), 1)
		return len(due) == 1 && due[0].Attempts >= 1
	})
}
