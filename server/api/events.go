package api

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/softphone/softphone/sipua"
)

// backlogSize is how many call events GET /events keeps for clients that
// reconnect with Last-Event-ID.
const backlogSize = 1024

// heartbeat: a comment line this often lets a stream notice a gone client.
const heartbeat = 15 * time.Second

// backlog is a ring of the latest call events: once full, an add
// overwrites the oldest in place (shifting the whole slice down cost a copy
// of 512 KiB per event, issue 20).
type backlog struct {
	mu    sync.Mutex
	buf   []sipua.Event // in order from head once full
	head  int           // index of the oldest event once len(buf) == size
	size  int
	wake  chan struct{} // closed and replaced on every add
	first uint64        // Seq of the oldest event ever dropped from buf + 1
}

func newBacklog(n int) *backlog { return &backlog{size: n, wake: make(chan struct{})} }

func (b *backlog) add(e sipua.Event) {
	b.mu.Lock()
	if len(b.buf) == b.size {
		b.first = b.buf[b.head].Seq + 1
		b.buf[b.head] = e
		b.head = (b.head + 1) % b.size
	} else {
		b.buf = append(b.buf, e)
	}
	close(b.wake)
	b.wake = make(chan struct{})
	b.mu.Unlock()
}

// after returns the events with Seq > seq, whether events after seq were
// already lost, and a channel closed on the next add.
func (b *backlog) after(seq uint64) ([]sipua.Event, bool, <-chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []sipua.Event
	for i := range b.buf {
		if e := b.buf[(b.head+i)%len(b.buf)]; e.Seq > seq {
			out = append(out, e)
		}
	}
	return out, b.first > seq+1, b.wake
}

func (b *backlog) last() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.buf) == 0 {
		return b.first
	}
	return b.buf[(b.head+len(b.buf)-1)%len(b.buf)].Seq
}

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
				p, _ := sipua.Flat(e)
				data, _ := json.Marshal(p)
				fmt.Fprintf(w, "id: %d\nevent: %s\ndata: %s\n\n", e.Seq, e.Kind, data)
				since = e.Seq
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
