package web

import (
	"context"
	"sync"

	"github.com/softphone/softphone/sipua"
)

// hub tells open event streams that something changed. A stream renders the
// whole calls list anew on each poke, so a merged poke loses nothing.
type hub struct {
	mu      sync.Mutex
	clients map[chan struct{}]struct{}
	done    chan struct{}
	digits  map[string]string // call id -> DTMF received on it
	sent    map[string]string // call id -> DTMF the pages sent on it
	ended   uint64            // calls ended so far: the history has news
	recent  endedCalls        // the call that has just ended, for its card (words.go)
	missed  missedCache       // the navigation's count of missed calls (words.go)
}

func newHub() *hub {
	return &hub{clients: map[chan struct{}]struct{}{}, done: make(chan struct{}), digits: map[string]string{}, sent: map[string]string{}}
}

// run follows the phone's bus until ctx ends, then ends every stream. The
// hub taps the bus (sipua.Bus.Tap): noting an event and poking the streams
// take a moment under the hub's locks, and a goroutine woken per event cost
// more than that (issue 20).
func (h *hub) run(ctx context.Context, s *Server) {
	defer close(h.done)
	go s.watchAudio(ctx)
	if s.cfg.Bus != nil {
		untap := s.cfg.Bus.Tap(nil, func(e sipua.Event) {
			h.note(e)
			h.poke()
		})
		defer untap()
	}
	<-ctx.Done()
}

// note keeps the digits received on each call while it lasts.
func (h *hub) note(e sipua.Event) {
	h.recent.note(e)
	h.mu.Lock()
	defer h.mu.Unlock()
	switch e.Kind {
	case sipua.EventDTMF:
		d := h.digits[e.Call.ID] + e.Digit
		if len(d) > 32 {
			d = d[len(d)-32:]
		}
		h.digits[e.Call.ID] = d
	case sipua.EventCallEnded:
		delete(h.digits, e.Call.ID)
		delete(h.sent, e.Call.ID)
		h.ended++
	}
}

func (h *hub) endedCount() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ended
}

func (h *hub) received(id string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.digits[id]
}

// noteSent keeps the digits sent on a call from the pages (the last 32),
// so the live-call bar can echo them.
func (h *hub) noteSent(id, digits string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	d := h.sent[id] + digits
	if len(d) > 32 {
		d = d[len(d)-32:]
	}
	h.sent[id] = d
}

func (h *hub) sentOn(id string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sent[id]
}

// poke wakes every stream; a stream already woken stays so (coalescing).
func (h *hub) poke() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.clients {
		select {
		case c <- struct{}{}:
		default:
		}
	}
}

func (h *hub) join() chan struct{} {
	c := make(chan struct{}, 1)
	h.mu.Lock()
	h.clients[c] = struct{}{}
	h.mu.Unlock()
	return c
}

func (h *hub) leave(c chan struct{}) {
	h.mu.Lock()
	delete(h.clients, c)
	h.mu.Unlock()
}
