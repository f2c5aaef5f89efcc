package web

import (
	"context"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/gofiber/fiber/v3"
	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/store"
	"github.com/softphone/softphone/views"
)

// Issue 16 items 3-5 on the pages: the card of a call that has just ended
// says why; the dial field suggests contacts and recent numbers and dials a
// contact's number when given the name; missed calls are counted on the
// navigation until History is seen, and listed on the phone page.

// endedShown is how long the card of an ended call stays (unless dismissed
// or another call starts). The stream's heartbeat re-renders within 20 s.
const endedShown = 2 * time.Minute

// MissedCounter is the store's count of missed calls since History was seen.
type MissedCounter interface {
	MissedSinceSeen(ctx context.Context) (int, error)
	MarkHistorySeen(ctx context.Context, at time.Time) error
}

// HistoryNews tells when a call's history entry is written (the missed
// calls are counted from it; the call ends a moment before).
type HistoryNews interface {
	OnHistoryFinished(fn func())
}

// watchHistory has the badge counted again, and open pages told, each time
// a call's entry is written.
func (s *Server) watchHistory() {
	if hn, ok := s.cfg.DB.(HistoryNews); ok {
		hn.OnHistoryFinished(func() {
			s.hub.missed.news()
			s.hub.poke()
		})
	}
}

// NameFinder finds a contact by name (the dial field's "Enter on a name").
type NameFinder interface {
	FindContactByName(ctx context.Context, name string) (store.Contact, error)
}

// endedCalls keeps the call that has just ended, for its card.
type endedCalls struct {
	mu   sync.Mutex
	last *sipua.Call
}

// note follows the bus: an ended call is kept, a new one clears it.
func (e *endedCalls) note(ev sipua.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch ev.Kind {
	case sipua.EventCallStarted:
		e.last = nil
	case sipua.EventCallEnded:
		c := ev.Call
		e.last = &c
	}
}

func (e *endedCalls) dismiss(id string) {
	e.mu.Lock()
	if e.last != nil && e.last.ID == id {
		e.last = nil
	}
	e.mu.Unlock()
}

// views is the card to show, if any.
func (e *endedCalls) views(now time.Time) []views.EndedView {
	e.mu.Lock()
	defer e.mu.Unlock()
	c := e.last
	if c == nil || now.Sub(c.EndedAt) > endedShown {
		return nil
	}
	return []views.EndedView{{ID: c.ID, Number: c.Number, Name: c.Name, AccountID: c.AccountID,
		Outcome: views.Outcome{Direction: string(c.Direction), Outcome: c.Outcome, Reason: c.Reason, SIPStatus: c.SIPStatus}}}
}

// missedCache is the badge's count, read again only when a call's entry was
// written, a call ended or History was seen (the streams render on every
// event of every call).
type missedCache struct {
	mu  sync.Mutex
	n   int
	key uint64 // ended calls + gen when n was read
	gen uint64 // history written or seen
	ok  bool
}

// news notes that the history changed.
func (m *missedCache) news() {
	m.mu.Lock()
	m.gen++
	m.mu.Unlock()
}

// historyNews rises whenever open History pages should read their list
// again: a call ended, its entry was written, History was seen elsewhere.
func (h *hub) historyNews() uint64 {
	n := h.endedCount()
	h.missed.mu.Lock()
	defer h.missed.mu.Unlock()
	return n + h.missed.gen
}

// missed is the count of missed calls since History was seen.
func (s *Server) missed(ctx context.Context) int {
	mc, ok := s.cfg.DB.(MissedCounter)
	if !ok {
		return 0
	}
	ended := s.hub.endedCount()
	m := &s.hub.missed
	m.mu.Lock()
	defer m.mu.Unlock()
	key := ended + m.gen
	if m.ok && m.key == key {
		return m.n
	}
	n, err := mc.MissedSinceSeen(ctx)
	if err != nil {
		s.log.Warn("missed calls not counted", "err", err)
		return m.n
	}
	m.n, m.key, m.ok = n, key, true
	return n
}

// historySeen clears the badge: every open page hears it.
func (s *Server) historySeen(ctx context.Context) {
	mc, ok := s.cfg.DB.(MissedCounter)
	if !ok || s.missed(ctx) == 0 {
		return // nothing to clear: no write for every look at History
	}
	if err := mc.MarkHistorySeen(ctx, time.Now()); err != nil {
		s.log.Warn("history not marked seen", "err", err)
		return
	}
	m := &s.hub.missed
	m.mu.Lock()
	had := m.ok && m.n > 0
	m.ok = false // counted again at the next render
	if had {
		m.gen++ // other open pages hear it
	}
	m.mu.Unlock()
	if had {
		s.hub.poke()
	}
}

// dismissEnded is POST /calls/ended/:id/dismiss.
func (s *Server) dismissEnded(c fiber.Ctx) error {
	s.hub.recent.dismiss(c.Params("id"))
	s.hub.poke()
	return ok(c)
}

// looksLikeName: a letter in it (numbers have none, "Desk 2" has), and no
// SIP address or link.
func looksLikeName(v string) bool {
	v = strings.TrimSpace(v)
	if v == "" || strings.ContainsAny(v, "@:;") {
		return false
	}
	return strings.IndexFunc(v, unicode.IsLetter) >= 0
}

// contactNumber gives the number of the contact named in, when in is a
// contact's whole name (else in unchanged): Enter on a name calls that
// person, it never dials the name. A SIP user name no contact has ("bob",
// though "Bob Builder" is a contact) is dialled as it is.
func (s *Server) contactNumber(ctx context.Context, in string) string {
	nf, ok := s.cfg.DB.(NameFinder)
	if !ok || !looksLikeName(in) {
		return in
	}
	ct, err := nf.FindContactByName(ctx, in)
	if err != nil || ct.Number == "" {
		return in
	}
	return ct.Number
}

// maxSuggestions bounds the dial field's list.
const maxSuggestions = 12

// suggestions are contacts whose name or number holds q, then recent numbers
// holding it, each number once.
func (s *Server) suggestions(ctx context.Context, q string) []views.Suggestion {
	if s.cfg.DB == nil {
		return nil
	}
	q = strings.TrimSpace(q)
	seen := map[string]bool{}
	var out []views.Suggestion
	add := func(number, label string) {
		if number == "" || seen[number] || len(out) >= maxSuggestions {
			return
		}
		seen[number] = true
		out = append(out, views.Suggestion{Number: number, Label: label})
	}
	if q != "" { // the whole address book is not read for an empty field
		if cs, err := s.cfg.DB.ListContacts(ctx, q); err == nil {
			for _, ct := range cs {
				add(ct.Number, ct.Name+" · "+ct.Number)
			}
		}
	}
	if hs, err := s.cfg.DB.ListHistory(ctx, store.HistoryFilter{Limit: 50, Text: q}); err == nil {
		for _, h := range hs {
			label := h.Number
			if h.Name != "" {
				label = h.Name + " · " + h.Number
			}
			add(h.Number, label)
		}
	}
	return out
}

// suggest is GET /dial/suggest?number=...: the options of the dial field.
// It answers contacts and call history, so it wants what a change wants
// (checkCSRF lets GETs through): a request from this phone's own page, with
// the session's token (htmx sends it on every request, layout.templ). What no
// number holds is refused, not looked up; the refusal changes nothing on the
// page (HX-Reswap: none).
func (s *Server) suggest(c fiber.Ctx) error {
	c.Set("Cache-Control", "no-store")
	l := s.lang()
	id, _ := c.Locals(localsSession).(string)
	if !s.sameOrigin(c) || !s.sessions.checkCSRF(id, c.Get(csrfHeader)) {
		c.Set("HX-Reswap", "none")
		return c.Status(fiber.StatusForbidden).SendString(l.T("err.suggest.cross"))
	}
	q := c.Query("number")
	if badText(l, q, maxSuggestBytes) != "" {
		c.Set("HX-Reswap", "none")
		return c.Status(fiber.StatusBadRequest).SendString(l.T("err.suggest.bad"))
	}
	return s.render(c, views.DialSuggestions(s.suggestions(c.Context(), q)))
}

// recentCalls is the phone page's recent calls and the missed ones not seen.
func (s *Server) recentCalls(ctx context.Context) views.RecentData {
	var d views.RecentData
	if s.cfg.DB == nil {
		return d
	}
	if hs, err := s.cfg.DB.ListHistory(ctx, store.HistoryFilter{Limit: 8}); err == nil {
		d.Recent = hs
	}
	if n := s.missed(ctx); n > 0 {
		if hs, err := s.cfg.DB.ListHistory(ctx, store.HistoryFilter{Missed: true, Limit: min(n, 5)}); err == nil {
			d.Missed = hs
		}
	}
	return d
}
