package webhook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/softphone/softphone/store"
)

// storeTimeout bounds one outbox write made after a delivery; it runs even
// while shutting down, so a delivered event is not sent again needlessly.
const storeTimeout = 5 * time.Second

// dispatch hands due events to at most Workers deliveries at once, never two
// of one call, so each call's events go out strictly in order (DueOutbox
// gives only the oldest event of each call). The heads it read stay valid
// until delivered (only this loop removes events), so the outbox is asked
// again only when they are used up, or when a delivery ends and nothing else
// is ready; that keeps the queries few at high rates. Between those it
// sleeps until the next thing it has to do (sleep.go): an enqueue or a
// settings change pokes it, and a timer is armed only for the earliest
// retry. It returns when ctx ends and every delivery in flight has finished.
//
// A failed attempt makes nothing due (its event waits for its retry, the
// events of its call behind it wait for it), so it does not ask the outbox
// again: during a receiver's outage that look walked every event queued
// behind the calls' first ones a second time per retry (5.5 ms of CPU at
// the outbox's 10,000 events). The retry's own time is found when the
// dispatcher goes to sleep (wait). Only an event that left the outbox, a
// look that filled its page (more may be due), or one that found a due
// event it could not take (in flight: it was due before its attempt
// failed, and the retry's time may lie before that look, which the sleep's
// question no longer sees) asks again.
func (s *Sender) dispatch(ctx context.Context) {
	inflight := make(map[string]bool, s.cfg.Workers)
	type ended struct {
		key  string
		left bool // the event left the outbox: the next of its call may be due
	}
	done := make(chan ended, s.cfg.Workers)
	var ready []store.OutboxEvent
	z := newSleeper()
	defer z.stop()
	defer func() {
		for len(inflight) > 0 {
			delete(inflight, (<-done).key)
		}
	}()
	ask := true
	more := false // the last look filled its page, or left out a due event: ask again
	var asked time.Time
	for {
		readFailed := false
		if !s.enabled() {
			ready = ready[:0]
		} else {
			if ask && len(ready) == 0 && len(inflight) < s.cfg.Workers {
				ask = false // until then it stays asked for: a worker that frees takes it up
				now := time.Now()
				s.followClock(ctx, now)
				asked = now
				due, err := s.db.DueOutbox(ctx, now, dueBatch)
				if err != nil && ctx.Err() == nil {
					readFailed = true
					s.readLog.fail(s.log, "webhook outbox not read", err)
				}
				more = len(due) >= dueBatch
				for _, ev := range due {
					if inflight[key(ev)] || s.marks.hold(&ev, now) {
						more = true
					} else {
						ready = append(ready, ev)
					}
				}
			}
			for len(ready) > 0 && len(inflight) < s.cfg.Workers {
				ev := ready[0]
				ready = ready[1:]
				k := key(ev)
				inflight[k] = true
				go func() {
					done <- ended{k, s.deliver(ctx, ev)}
				}()
			}
		}
		z.arm(s.wait(ctx, asked, len(inflight) > 0 || len(ready) > 0, readFailed), s.armed)
		select {
		case <-ctx.Done():
			return
		case e := <-done:
			delete(inflight, e.key)
			ask = ask || e.left || more
		case <-s.wake:
			ask = true
		case <-z.c():
			z.fired()
			s.storeMarks(ctx)
			ask = true
		}
	}
}

// dueBatch is how many call heads one outbox query reads.
const dueBatch = 256

// key groups the events that must go out one after the other: a call's.
func key(ev store.OutboxEvent) string {
	if ev.CallID == "" {
		return ev.DeliveryID
	}
	return ev.CallID
}

// deliver makes one attempt at ev and records the outcome in the outbox. It
// tells whether ev left the outbox (delivered or given up); false when it
// waits for a retry, or stays queued for the next start.
func (s *Sender) deliver(ctx context.Context, ev store.OutboxEvent) bool {
	now := time.Now()
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	defer cancel()
	if !ev.CreatedAt.IsZero() && now.Sub(ev.CreatedAt) > s.cfg.MaxAge {
		s.finish(wctx, ev, ev.LastStatus, false, expired(s.cfg.MaxAge, ev.LastError))
		return true
	}
	status, retryAfter, _, err := s.send(ctx, s.target(), ev.DeliveryID, ev.Fields, nil, 0)
	if err == nil {
		s.finish(wctx, ev, status, true, "")
		s.cfg.Metrics.WebhookDelivered() // after the log line, so the two agree when read
		return true
	}
	if ctx.Err() != nil {
		return false // shutting down: the event stays queued and is sent after the restart
	}
	defer s.cfg.Metrics.WebhookFailed()
	next := time.Now().Add(s.backoff(ev.Attempts+1, retryAfter)) // from the answer, for Retry-After
	if !ev.CreatedAt.IsZero() && next.Sub(ev.CreatedAt) > s.cfg.MaxAge {
		s.finish(wctx, ev, status, false, expired(s.cfg.MaxAge, errText(err)))
		return true
	}
	text := errText(err)
	s.wmu.Lock()
	err = s.db.OutboxAttempt(wctx, ev.Seq, status, text, next)
	s.wmu.Unlock()
	s.noteWrite(err)
	if errors.Is(err, store.ErrNotFound) {
		return true // no longer queued
	}
	if err != nil {
		// Not written (a full disk): the next try still waits for next.
		s.marks.add(ev.Seq, mark{status: status, errText: text, next: next, attempts: ev.Attempts + 1})
		s.marks.mu.Lock()
		s.marks.rlog.fail(s.log, "webhook outcomes not written; kept in memory and tried again", err)
		s.marks.mu.Unlock()
	}
	return false
}

func (s *Sender) finish(ctx context.Context, ev store.OutboxEvent, status int, ok bool, errText string) {
	s.wmu.Lock()
	err := s.db.OutboxDone(ctx, ev.Seq, status, ok, errText)
	s.wmu.Unlock()
	s.noteWrite(err)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		// Not written (a full disk): never sent again while the process
		// lives; storeMarks writes it later.
		s.marks.add(ev.Seq, mark{done: true, status: status, ok: ok, errText: errText, attempts: ev.Attempts + 1})
		s.marks.mu.Lock()
		s.marks.rlog.fail(s.log, "webhook outcomes not written; kept in memory and tried again", err)
		s.marks.mu.Unlock()
	}
	if !ok {
		s.log.Warn("webhook given up", "event", ev.Event, "call", ev.CallID, "delivery", ev.DeliveryID, "err", errText)
	}
}

// errText is what the delivery log shows of a failure ("answered 503
// Service Unavailable", "dial tcp ...: connection refused").
func errText(err error) string {
	return cut(strings.TrimPrefix(err.Error(), ErrSend.Error()+": "))
}

// errTextMax bounds what an outbox event and a line of the delivery log keep
// of a failure: a receiver's reason phrase may fill the 64 KiB of its
// answer's header (a broken proxy, a hostile host), and a certificate's
// error lists every name it holds. Kept whole, that was 60 KB per event
// waiting for its retry and per line of the log, shown on the Settings page.
const errTextMax = 300

// cut shortens s to at most errTextMax bytes, whole UTF-8 characters, "…"
// at the end when it cut.
func cut(s string) string {
	if len(s) <= errTextMax {
		return s
	}
	const more = "…"
	n := errTextMax - len(more)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + more
}

func expired(age time.Duration, last string) string {
	return cut(fmt.Sprintf("given up after %s: %s", age, last))
}

// backoff is the wait before attempt n+1: RetryBase doubled per attempt up to
// RetryMax, with "equal jitter" (half fixed, half random), and never shorter
// than the receiver's Retry-After.
func (s *Sender) backoff(attempt int, retryAfter time.Duration) time.Duration {
	d := s.cfg.RetryMax
	if attempt < 30 {
		if b := s.cfg.RetryBase << (attempt - 1); b > 0 && b < d {
			d = b
		}
	}
	d = d/2 + rand.N(d/2+1)
	return max(d, retryAfter)
}

// send makes one request. A 2xx answer is success; anything else, a refused
// connection or the time-out is an error. keep > 0 keeps that much of the
// answer's body (for the test event); extra headers are added as they are.
func (s *Sender) send(ctx context.Context, t target, id string, p map[string]string, extra http.Header, keep int) (status int, retryAfter time.Duration, body string, err error) {
	now := time.Now()
	req, err := t.newRequest(ctx, id, p, now)
	if err != nil {
		return 0, 0, "", err
	}
	for k, v := range extra {
		req.Header[k] = v
	}
	resp, err := s.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL may hold a secret of the user's: keep it out of logs
		}
		return 0, 0, "", fmt.Errorf("%w: %v", ErrSend, err)
	}
	defer func() { _ = resp.Body.Close() }()
	var b []byte
	if keep > 0 {
		b, _ = io.ReadAll(io.LimitReader(resp.Body, int64(keep)))
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16)) // lets the connection be reused
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp.StatusCode, 0, string(b), nil
	}
	return resp.StatusCode, parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()), string(b),
		fmt.Errorf("%w: answered %s", ErrSend, resp.Status)
}

// parseRetryAfter reads delay-seconds or an HTTP-date (RFC 9110 10.2.3).
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil {
		return time.Duration(max(n, 0)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
