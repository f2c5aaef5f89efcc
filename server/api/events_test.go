package api

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/store"
)

type sseEvent struct {
	id, kind string
	data     map[string]string
}

// sseClient reads an event stream line by line.
type sseClient struct {
	t   *testing.T
	res *http.Response
	rd  *bufio.Reader
}

func openEvents(t *testing.T, e *env, hdr ...string) *sseClient {
	t.Helper()
	req, _ := http.NewRequest("GET", e.base+"/events", nil)
	for _, h := range hdr {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Set(k, strings.TrimSpace(v))
	}
	res, err := apiClient(t).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET /events: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	c := &sseClient{t: t, res: res, rd: bufio.NewReader(res.Body)}
	// The opening comment comes at once, before any event.
	line, err := c.rd.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, ":") {
		t.Fatalf("first line %q %v", line, err)
	}
	return c
}

// next reads the next event (comments skipped).
func (c *sseClient) next() (sseEvent, error) {
	var ev sseEvent
	for {
		line, err := c.rd.ReadString('\n')
		if err != nil {
			return ev, err
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case line == "" && ev.kind != "":
			return ev, nil
		case strings.HasPrefix(line, "id: "):
			ev.id = line[4:]
		case strings.HasPrefix(line, "event: "):
			ev.kind = line[7:]
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(line[6:]), &ev.data); err != nil {
				c.t.Fatalf("data %q: %v", line, err)
			}
		}
	}
}

func (c *sseClient) must() sseEvent {
	c.t.Helper()
	ev, err := c.next()
	if err != nil {
		c.t.Fatal(err)
	}
	return ev
}

var flatFields = []string{"event", "id", "seance_id", "direction", "state", "number", "name", "uri", "dialed", "account",
	"account_id", "event_ts", "callstart_ts", "callstate_ts", "duration_s", "reason", "answered_by"}

func TestEventsStreamAndResume(t *testing.T) {
	e := newEnv(t)
	s := openEvents(t, e)
	call := e.phone.ring("+4930777")
	ev := s.must()
	if ev.kind != "call-started" || ev.data["event"] != "call-started" || ev.data["id"] != call.ID ||
		ev.data["state"] != "ringing-in" || ev.data["direction"] != "in" || ev.data["duration_s"] != "0" || ev.data["reason"] != "none" {
		t.Fatalf("event %+v", ev)
	}
	for _, f := range flatFields {
		if _, ok := ev.data[f]; !ok {
			t.Errorf("no field %s", f)
		}
	}
	if len(ev.data) != len(flatFields) {
		t.Errorf("fields %v", ev.data)
	}
	if ev.data["callstart_ts"] == "" || ev.data["event_ts"] == "" {
		t.Errorf("moments %v", ev.data)
	}
	firstID := ev.id
	if r := e.post("/calls/"+call.ID+"/answer", ""); r.status != 204 {
		t.Fatal(r.status)
	}
	ev = s.must()
	if ev.kind != "call-state-changed" || ev.data["state"] != "active" {
		t.Fatalf("event %+v", ev)
	}
	// Muting and the like (call-updated) never reach the stream.
	e.bus.Publish(sipEventUpdated(call))
	if r := e.post("/calls/"+call.ID+"/hangup", ""); r.status != 204 {
		t.Fatal(r.status)
	}
	ev = s.must()
	if ev.kind != "call-ended" || ev.data["state"] != "ended" || ev.data["reason"] != "local-hangup" {
		t.Fatalf("event %+v", ev)
	}
	lastID := ev.id

	// Reconnecting with Last-Event-ID replays what came after it.
	s2 := openEvents(t, e, "Last-Event-ID: "+firstID)
	if ev := s2.must(); ev.kind != "call-state-changed" {
		t.Fatalf("resume: %+v", ev)
	}
	if ev := s2.must(); ev.kind != "call-ended" || ev.id != lastID {
		t.Fatalf("resume: %+v", ev)
	}
	// An id from the future (an earlier run of the phone) starts from now.
	s3 := openEvents(t, e, "Last-Event-ID: 999999")
	c2 := e.phone.ring("+4930778")
	if ev := s3.must(); ev.data["id"] != c2.ID {
		t.Fatalf("future id: %+v", ev)
	}
	if r := e.get("/events", "Last-Event-ID: abc"); r.status != 400 {
		t.Errorf("bad Last-Event-ID: %d", r.status)
	}

	// Switching the interface off ends open streams.
	e.update(func(st *store.Settings) { st.API.Enabled = false })
	done := make(chan error, 1)
	go func() {
		for {
			if _, err := s.next(); err != nil {
				done <- err
				return
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("stream still open after switching off")
	}
}
