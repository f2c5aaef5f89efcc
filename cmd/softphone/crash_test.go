package main

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/softphone/softphone/internal/testpeer"
)

// callPlan is what the test did with one call before the phone was killed.
type callPlan struct {
	round    int
	kind     string    // ringing (never answered), answered (up at the kill), hungup (ended normally)
	answered time.Time // when the test saw it active
	killed   time.Time
}

// TestKillLoopEveryCallEndsOnce kills the phone with -9 again and again in
// the middle of bursts of calls from SIPp, with the webhook receiver down,
// slow and back (issue 14). Every call gets exactly one call-ended (by
// Webhook-Id), after its other events; calls answered before the kill are
// answered, with the talk time up to the last heartbeat; history agrees, the
// counters of the next run count the interrupted calls, and an /events
// client that reconnects with the earlier run's Last-Event-ID is sent them.
func TestKillLoopEveryCallEndsOnce(t *testing.T) {
	r := newCrashRig(t, t.TempDir())
	plans := map[string]*callPlan{}
	var lastSSE string
	round := func(n int, mode string, check func(p *proc)) {
		r.hooks.set(mode)
		p := r.start(t)
		if check != nil {
			check(p)
		}
		stream := openSSE(t, r.api+"/events", "")
		sipp := r.sipp(t, 6)
		ids := r.waitCalls(t, p, 6, "ringing-in")
		for _, id := range ids[2:] {
			r.action(t, id, "answer")
		}
		r.waitCalls(t, p, 4, "connected")
		seen := time.Now()
		for i, id := range ids {
			plans[id] = &callPlan{round: n, kind: "ringing"}
			if i >= 2 {
				plans[id].kind, plans[id].answered = "answered", seen
			}
		}
		r.action(t, ids[5], "hangup")
		plans[ids[5]].kind = "hungup"
		// The answers are in the history while the calls are still up.
		for _, id := range ids[2:5] {
			if !testpeer.WaitFor(5*time.Second, func() bool { a, o, ok := r.historyRow(t, id); return ok && a && o }) {
				t.Fatalf("round %d: answer of %s not in the history while it lasts", n, id)
			}
		}
		// The calls last a few heartbeats, then the phone dies.
		time.Sleep(3 * time.Second) // talk time of the calls, not a wait for an event
	drain:
		for {
			select {
			case e, ok := <-stream.events:
				if !ok {
					break drain
				}
				lastSSE = strconv.FormatUint(e.id, 10)
			default:
				break drain
			}
		}
		_ = p.cmd.Process.Kill()
		<-p.done
		killed := time.Now()
		for _, id := range ids {
			plans[id].killed = killed
		}
		_ = sipp.Process.Kill()
		_ = sipp.Wait()
	}

	round(0, "down", nil)
	round(1, "slow", func(p *proc) {
		// The calls round 0 left: 2 missed, 3 answered, in this run's
		// counters, and on /events for a client coming back with the
		// earlier run's Last-Event-ID.
		stream := openSSE(t, r.api+"/events", lastSSE)
		ended := map[string]map[string]string{}
		deadline := time.After(15 * time.Second)
		for len(ended) < 5 {
			select {
			case e, ok := <-stream.events:
				if !ok {
					t.Fatal("/events ended")
				}
				if e.kind == "call-ended" && plans[e.fields["id"]] != nil && plans[e.fields["id"]].round == 0 {
					ended[e.fields["id"]] = e.fields
				}
			case <-deadline:
				t.Fatalf("/events after the restart gave %d of round 0's 5 interrupted calls\n%s", len(ended), p.Output())
			}
		}
		for id, f := range ended {
			if f["reason"] != "interrupted" || f["state"] != "ended" {
				t.Errorf("/events call-ended of %s: %v", id, f)
			}
		}
		c := r.counters(t)
		if c["calls_missed_total"] != 2 || c["calls_answered_total"] != 3 {
			t.Errorf("counters after the restart: missed %v answered %v; want 2 and 3", c["calls_missed_total"], c["calls_answered_total"])
		}
	})
	// A start killed at once: the closing of round 1's calls and the
	// deliveries in flight are cut short.
	r.hooks.set("slow")
	p := startPhone(t, r.home, noKeyring)
	_ = p.cmd.Process.Kill()
	<-p.done
	round(2, "up", nil)

	r.hooks.set("up")
	p = r.start(t)
	if !testpeer.WaitFor(90*time.Second, func() bool { return countEnded(r.hooks.snapshot(), plans) == len(plans) }) {
		t.Fatalf("call-ended received for %d of %d calls\n%s", countEnded(r.hooks.snapshot(), plans), len(plans), p.Output())
	}
	checkHooks(t, r.hooks.snapshot(), plans)
	checkHistory(t, r, plans)
	p.stop(t)
}

// countEnded counts the planned calls with at least one call-ended.
func countEnded(hits []hookHit, plans map[string]*callPlan) int {
	seen := map[string]bool{}
	for _, h := range hits {
		if h.fields["event"] == "call-ended" && plans[h.fields["id"]] != nil {
			seen[h.fields["id"]] = true
		}
	}
	return len(seen)
}

// checkHooks: per call exactly one call-ended (by Webhook-Id), nothing of
// the call after it, and the right reason, answer and talk time.
func checkHooks(t *testing.T, hits []hookHit, plans map[string]*callPlan) {
	t.Helper()
	ended := map[string]map[string]bool{} // call -> call-ended delivery ids
	endedAt := map[string]int{}           // call -> index of its first call-ended
	deliveries := map[string]int{}
	for i, h := range hits {
		id := h.fields["id"]
		if plans[id] == nil {
			continue
		}
		deliveries[h.delivery]++
		if h.fields["event"] == "call-ended" {
			if ended[id] == nil {
				ended[id] = map[string]bool{}
				endedAt[id] = i
			}
			ended[id][h.delivery] = true
			p := plans[id]
			want := map[string]string{"ringing": "interrupted", "answered": "interrupted", "hungup": "local-hangup"}[p.kind]
			if h.fields["reason"] != want {
				t.Errorf("call %s (%s): reason %q, want %q", id, p.kind, h.fields["reason"], want)
			}
			d, _ := strconv.ParseFloat(h.fields["duration_s"], 64)
			switch p.kind {
			case "ringing":
				if d != 0 || h.fields["answered_by"] != "" {
					t.Errorf("ringing call %s: duration %v answered_by %q", id, d, h.fields["answered_by"])
				}
			case "answered":
				talk := p.killed.Sub(p.answered).Seconds()
				// At most a heartbeat (2 s) and the test's polling lost.
				if h.fields["answered_by"] != "no" || d < talk-3 || d > talk+1 {
					t.Errorf("answered call %s: duration %v (talked %.1f s) answered_by %q", id, d, talk, h.fields["answered_by"])
				}
			}
		} else if at, ok := endedAt[id]; ok && at < i {
			t.Errorf("call %s: %s arrived after its call-ended", id, h.fields["event"])
		}
	}
	for id := range plans {
		if len(ended[id]) != 1 {
			t.Errorf("call %s (%s, round %d): %d call-ended events", id, plans[id].kind, plans[id].round, len(ended[id]))
		}
	}
	most := 0
	for _, n := range deliveries {
		most = max(most, n)
	}
	t.Logf("figures: %d calls, %d events, %d requests received (%.2f per event, at most %d for one)",
		len(plans), len(deliveries), len(hits), float64(len(hits))/float64(len(deliveries)), most)
}

// checkHistory: the API's history says the same.
func checkHistory(t *testing.T, r *crashRig, plans map[string]*callPlan) {
	t.Helper()
	var hist []map[string]any
	if err := testpeer.GetJSON(r.api+"/history?limit=100", &hist); err != nil {
		t.Fatal(err)
	}
	byCall := map[string]map[string]any{}
	for _, h := range hist {
		byCall[fmt.Sprint(h["call_id"])] = h
	}
	for id, p := range plans {
		h := byCall[id]
		if h == nil {
			t.Errorf("call %s not in the history", id)
			continue
		}
		want := map[string][3]any{ // outcome, answered, reason
			"ringing":  {"missed", false, "interrupted"},
			"answered": {"answered", true, "interrupted"},
			"hungup":   {"answered", true, "local-hangup"},
		}[p.kind]
		if h["outcome"] != want[0] || h["answered"] != want[1] || h["reason"] != want[2] {
			t.Errorf("history of %s (%s): outcome %v answered %v reason %v; want %v", id, p.kind, h["outcome"], h["answered"], h["reason"], want)
		}
	}
}
