package api

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"
)

// backlogSize is how many call events GET /events keeps for clients that
// reconnect with Last-Event-ID.
const backlogSize = 1024

// heartbeat: a comment line this often lets a stream notice a gone client.
const heartbeat = 15 * time.Second

// streamEvents: GET /events, the call events of the webhooks as Server-Sent
// Events: "id:" is the event's sequence number, "event:" its kind, "data:"
// the flat JSON object. With Last-Event-ID the stream first replays the
// kept events after that id; without, it starts with what happens next.
func (s *Server) streamEvents(c fiber.Ctx) error {
	l, _ := c.Locals(localsListener).(*listener)
	var since uint64
	resume := false
	if v := c.Get("Last-Event-ID"); v != "" {
		n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return fail(fiber.StatusBadRequest, "Last-Event-ID must be the id of an event")
		}
		since, resume = n, true
	}
	if !resume || since > s.events.last() {
		// Fresh, or an id of an earlier run of the phone: from now on.
		since = s.events.last()
	}
	c.Set(fiber.HeaderContentType, "text/event-stream")
	c.Set(fiber.HeaderCacheControl, "no-cache")
	c.Set("X-Accel-Buffering", "no")
	if c.Method() == fiber.MethodHead {
		// No stream: fasthttp ends a streamed answer to HEAD with the
		// empty chunk's CRLF, two bytes the client reads as the start of
		// its next answer on the connection.
		return nil
	}
	stop := make(chan struct{})
	if l != nil {
		stop = l.stop
	}
	return c.SendStreamWriter(func(w *bufio.Writer) {
		// Flush at once: the client sees the stream open before any event.
		fmt.Fprint(w, ": softphone call events\nretry: 2000\n\n")
		if w.Flush() != nil {
			return
		}
		tick := time.NewTicker(heartbeat)
		defer tick.Stop()
		first := true
		for {
			evs, lost, wake := s.events.after(since)
			if first && resume && lost {
				fmt.Fprint(w, ": some events after Last-Event-ID are no longer kept\n\n")
			}
			first = false
			for _, e := range evs {
				_, _ = w.Write(e.frame)
				since = e.seq
			}
			if len(evs) > 0 && w.Flush() != nil {
				return
			}
			select {
			case <-wake:
			case <-tick.C:
				fmt.Fprint(w, ": ping\n\n")
				if w.Flush() != nil {
					return
				}
			case <-stop:
				return
			}
		}
	})
}
