package web

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v3"
	"github.com/softphone/softphone/views"
)

// heartbeat resends the state through idle periods; it also finds gone clients.
const heartbeat = 20 * time.Second

// events is the live stream of a page (htmx sse extension): "calls",
// "accounts" and "audio" events, each the HTML of that part, sent at once and
// again on every change; and "history" when a call has ended.
func (s *Server) events(c fiber.Ctx) error {
	c.Set("Content-Type", "text/event-stream")
	c.Set("Cache-Control", "no-store")
	c.Set("X-Accel-Buffering", "no")
	if c.Method() == fiber.MethodHead {
		// No stream: fasthttp ends a streamed answer to HEAD with the
		// empty chunk's CRLF, two bytes read as the start of the next answer.
		return nil
	}
	poke := s.hub.join()
	csrf, _ := c.Locals(localsCSRF).(string)
	id, _ := c.Locals(localsSession).(string)
	return c.SendStreamWriter(func(w *bufio.Writer) {
		defer s.hub.leave(poke)
		// An open page is in use: its session is not dropped as idle.
		defer s.sessions.hold(id)()
		// A comment first: nothing reaches the browser before the first flush.
		if _, err := w.WriteString(": live\n\n"); err != nil || w.Flush() != nil {
			return
		}
		t := time.NewTicker(heartbeat)
		defer t.Stop()
		ended := s.hub.historyNews()
		for {
			if err := s.writeState(w, csrf); err != nil {
				return
			}
			// A call ended: open history pages fetch their list again.
			if n := s.hub.historyNews(); n != ended {
				ended = n
				if writeEvent(w, "history", strconv.FormatUint(n, 10)) != nil || w.Flush() != nil {
					return
				}
			}
			select {
			case <-s.hub.done:
				return
			case <-poke:
			case <-t.C: // also heals anything a missed poke left stale (the audio holder)
			}
		}
	})
}

// writeState sends the whole live state; csrf goes into the forms of the
// origin questions.
func (s *Server) writeState(w *bufio.Writer, csrf string) error {
	l := s.lang()
	holder, live := s.audioHolder()
	parts := []struct {
		name string
		comp templ.Component
	}{
		{"calls", callsFragment(l, s.callViews(), s.hub.recent.views(time.Now()))},
		{"missed", views.MissedBadge(l, s.missed(context.Background()))},
		{"accounts", accountsFragment(l, s.accountViews())},
		{"audio", audioFragment(l, holder, live)},
		{"origins", originsFragment(l, s.asks(), csrf)},
		{"disk", diskFragment(s)},
	}
	parts = append(parts, s.officeParts(l)...)
	parts = append(parts, struct {
		name string
		comp templ.Component
	}{"regstates", s.regStatesPart(l)})
	for _, p := range parts {
		var buf bytes.Buffer
		if err := p.comp.Render(context.Background(), &buf); err != nil {
			return err
		}
		if err := writeEvent(w, p.name, buf.String()); err != nil {
			return err
		}
	}
	return w.Flush()
}

// writeEvent writes one server-sent event; every line of data gets its own
// "data:" field (HTML has newlines). A line ends at CRLF, LF or a lone CR
// (HTML, server-sent events 9.2.6): a CR inside a name (a contact's, from
// an imported file) would otherwise end the data line, and what follows it
// would be read as fields of the stream. The page's HTML parser reads a CR
// as an LF anyway (HTML 13.2.3.5).
func writeEvent(w *bufio.Writer, name, data string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "event: %s\n", name)
	if strings.IndexByte(data, '\r') >= 0 {
		data = strings.ReplaceAll(strings.ReplaceAll(data, "\r\n", "\n"), "\r", "\n")
	}
	for _, line := range strings.Split(data, "\n") {
		b.WriteString("data: ")
		b.WriteString(line)
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	_, err := w.WriteString(b.String())
	return err
}
