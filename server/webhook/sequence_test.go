package webhook

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/softphone/softphone/sipua"
)

// fields checks that a POST body has exactly the spec's keys, every value a
// string, and returns them as strings.
func fields(t *testing.T, h hit) map[string]string {
	t.Helper()
	if got := h.Header.Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type %q", got)
	}
	if got := h.Header.Get("User-Agent"); got != "softphone/1.2.3-deb" {
		t.Errorf("User-Agent %q", got)
	}
	if len(h.Fields) != len(Fields) {
		t.Errorf("body has %d keys, want %d: %s", len(h.Fields), len(Fields), h.Body)
	}
	out := make(map[string]string)
	for _, k := range Fields {
		v, ok := h.Fields[k]
		if !ok {
			t.Errorf("field %s missing: %s", k, h.Body)
			continue
		}
		s, ok := v.(string)
		if !ok {
			t.Errorf("field %s is %T, not a string", k, v)
		}
		out[k] = s
	}
	return out
}

func ms(tm time.Time) string { return strconv.FormatInt(tm.UnixMilli(), 10) }

func TestIncomingCallSequence(t *testing.T) {
	rc := newReceiver(t, nil)
	r := newRig(t, settingsFor(rc.URL+"/hook", "POST"), nil)
	pc := newCall(r.bus, sipua.DirIn, "+4930123456")
	pc.answer(3 * time.Second)
	pc.hangup(12500*time.Millisecond, sipua.ReasonRemoteHangup)
	hits := rc.wait(t, 3)
	if len(hits) != 3 {
		t.Fatalf("%d requests", len(hits))
	}
	var got []map[string]string
	for _, h := range hits {
		if h.Method != "POST" || h.Path != "/hook" {
			t.Errorf("%s %s", h.Method, h.Path)
		}
		got = append(got, fields(t, h))
	}
	start, answer, end := t0, t0.Add(3*time.Second), t0.Add(15500*time.Millisecond)
	want := []map[string]string{
		{"event": "call-started", "state": "ringing-in", "event_ts": ms(start), "callstate_ts": ms(start), "duration_s": "0", "reason": "none", "answered_by": ""},
		{"event": "call-state-changed", "state": "active", "event_ts": ms(answer), "callstate_ts": ms(answer), "duration_s": "0", "reason": "none", "answered_by": "no"},
		{"event": "call-ended", "state": "ended", "event_ts": ms(end), "callstate_ts": ms(end), "duration_s": "12.5", "reason": "remote-hangup", "answered_by": "no"},
	}
	for i, w := range want {
		w["id"], w["seance_id"], w["direction"], w["number"] = pc.c.ID, pc.c.SeanceID, "in", "+4930123456"
		w["name"], w["uri"], w["dialed"], w["account"] = "Bob Example", "sip:+4930123456@pbx.example", "", "alice@pbx.example"
		w["account_id"], w["callstart_ts"] = pc.c.AccountID, ms(start)
		for _, k := range Fields {
			if got[i][k] != w[k] {
				t.Errorf("event %d %s: %q, want %q", i, k, got[i][k], w[k])
			}
		}
		if hits[i].Header.Get(DeliveryIDHeader) == "" {
			t.Errorf("event %d has no %s", i, DeliveryIDHeader)
		}
	}
	eventually(t, "counters", func() bool { return r.cnt.delivered.Load() == 3 })
	if f, d := r.cnt.failed.Load(), r.cnt.dropped.Load(); f != 0 || d != 0 {
		t.Errorf("failed %d dropped %d", f, d)
	}
}

func TestOutgoingCallSequence(t *testing.T) {
	rc := newReceiver(t, nil)
	r := newRig(t, settingsFor(rc.URL, "POST"), nil)
	pc := newCall(r.bus, sipua.DirOut, "0301234")
	pc.to(sipua.StateRingingOut, 800*time.Millisecond, nil)
	pc.answer(4 * time.Second)
	pc.hangup(61*time.Second+250*time.Millisecond, sipua.ReasonLocalHangup)
	hits := rc.wait(t, 4)
	if len(hits) != 4 {
		t.Fatalf("%d requests", len(hits))
	}
	type row struct{ event, state, name, uri, cstate, dur, reason, answeredBy string }
	ring, ans, end := t0.Add(800*time.Millisecond), t0.Add(4800*time.Millisecond), t0.Add(66050*time.Millisecond)
	want := []row{
		{"call-started", "dialing", "", "sip:0301234@pbx.example:5060", ms(t0), "0", "none", ""},
		{"call-state-changed", "ringing-out", "", "sip:0301234@pbx.example:5060", ms(ring), "0", "none", ""},
		{"call-state-changed", "active", "Carol Example", "sip:0301234@pbx.example", ms(ans), "0", "none", "no"},
		{"call-ended", "ended", "Carol Example", "sip:0301234@pbx.example", ms(end), "61.25", "local-hangup", "no"},
	}
	ids := map[string]bool{}
	for i, w := range want {
		f := fields(t, hits[i])
		g := row{f["event"], f["state"], f["name"], f["uri"], f["callstate_ts"], f["duration_s"], f["reason"], f["answered_by"]}
		if g != w {
			t.Errorf("event %d:\n got %+v\nwant %+v", i, g, w)
		}
		if f["direction"] != "out" || f["dialed"] != "0301234" || f["callstart_ts"] != ms(t0) || f["id"] != pc.c.ID {
			t.Errorf("event %d: %v", i, f)
		}
		ids[hits[i].Header.Get(DeliveryIDHeader)] = true
	}
	if len(ids) != 4 {
		t.Errorf("delivery ids not distinct per event: %v", ids)
	}
}

func TestEachEventSilencedAlone(t *testing.T) {
	kinds := []string{"call-started", "call-state-changed", "call-ended"}
	for _, off := range kinds {
		t.Run(off, func(t *testing.T) {
			rc := newReceiver(t, nil)
			r := newRig(t, settingsFor(rc.URL, "POST", off), nil)
			pc := newCall(r.bus, sipua.DirIn, "111")
			pc.answer(time.Second)
			pc.hangup(time.Second, sipua.ReasonLocalHangup)
			var want []string
			for _, k := range []string{"call-started", "call-state-changed", "call-ended"} {
				if k != off {
					want = append(want, k)
				}
			}
			hits := rc.wait(t, len(want))
			// once the outbox is empty and the reader idle, nothing more can come
			eventually(t, "empty outbox", func() bool { return r.outboxLen(t) == 0 && len(r.sub.C()) == 0 })
			var got []string
			for _, h := range rc.wait(t, len(want)) {
				got = append(got, h.Fields["event"].(string))
			}
			if !slices.Equal(got, want) || rc.count() != len(want) || len(hits) != len(want) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
}

// Events that are not call events (mute, DTMF, registration) never become webhooks.
func TestOnlyCallEventsAreSent(t *testing.T) {
	rc := newReceiver(t, nil)
	r := newRig(t, settingsFor(rc.URL, "POST"), nil)
	r.bus.Publish(sipua.Event{Kind: sipua.EventCallUpdated, Call: sipua.Call{ID: "x", Muted: true}})
	r.bus.Publish(sipua.Event{Kind: sipua.EventDTMF, Digit: "5"})
	r.bus.Publish(sipua.Event{Kind: sipua.EventRegistration})
	newCall(r.bus, sipua.DirIn, "1")
	h := rc.wait(t, 1)
	eventually(t, "empty outbox", func() bool { return r.outboxLen(t) == 0 && len(r.sub.C()) == 0 })
	if rc.count() != 1 || h[0].Fields["event"] != "call-started" {
		t.Fatalf("got %d requests: %v", rc.count(), h[0].Fields)
	}
}
