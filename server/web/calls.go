package web

import (
	"errors"
	"strings"

	"github.com/gofiber/fiber/v3"
	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/store"
)

// dial is POST /calls: number (pasted numbers and links are cleaned) and an
// optional account.
func (s *Server) dial(c fiber.Ctx) error {
	if s.cfg.Phone == nil {
		return s.fail(c, fiber.StatusServiceUnavailable, s.lang().T("err.nophone"))
	}
	number := normalizeNumber(s.contactNumber(c.Context(), c.FormValue("number")))
	if number == "" {
		return s.fail(c, fiber.StatusBadRequest, s.lang().T("err.nonumber"))
	}
	call, err := s.cfg.Phone.Dial(c.Context(), number, c.FormValue("account"))
	if err != nil {
		return s.acted(c, err)
	}
	s.mu.Lock()
	s.redial = number
	s.mu.Unlock()
	return s.dialed(c, call.ID)
}

// dialed answers a page action that placed a call: the pages are poked, an
// htmx request hears the call's id (HX-Trigger "dialed"), a plain form post
// goes back to the phone page.
func (s *Server) dialed(c fiber.Ctx, id string) error {
	s.hub.poke()
	if isHTMX(c) {
		c.Set("HX-Trigger", `{"dialed":"`+id+`"}`)
		return ok(c)
	}
	return c.Redirect().Status(fiber.StatusSeeOther).To("/")
}

// callAction is POST /calls/:id/:action.
func (s *Server) callAction(c fiber.Ctx) error {
	if s.cfg.Phone == nil {
		return s.fail(c, fiber.StatusServiceUnavailable, s.lang().T("err.nophone"))
	}
	id, action := c.Params("id"), c.Params("action")
	p := s.cfg.Phone
	ctx := c.Context()
	var err error
	switch action {
	case "answer":
		err = p.Answer(ctx, id)
	case "decline":
		err = p.Decline(ctx, id)
	case "hangup":
		err = p.Hangup(ctx, id)
	case "hold":
		err = p.Hold(ctx, id)
	case "resume":
		err = p.Resume(ctx, id)
	case "mute", "unmute":
		err = p.SetMute(ctx, id, action == "mute")
	case "record", "record-stop":
		err = p.Record(ctx, id, action == "record")
	case "dtmf":
		digits := strings.TrimSpace(c.FormValue("digits"))
		if err = p.SendDTMF(ctx, id, digits); err == nil {
			s.hub.noteSent(id, digits)
		}
	case "transfer":
		err = p.Transfer(ctx, id, normalizeNumber(c.FormValue("target")))
	case "attended":
		err = p.AttendedTransfer(ctx, id, c.FormValue("consult"))
	default:
		return s.fail(c, fiber.StatusNotFound, "no such action")
	}
	return s.acted(c, err)
}

// conference is POST /calls/conference: every call in progress, or the ids given.
func (s *Server) conference(c fiber.Ctx) error {
	if s.cfg.Phone == nil {
		return s.fail(c, fiber.StatusServiceUnavailable, s.lang().T("err.nophone"))
	}
	var ids []string
	for _, v := range s.callViews() {
		if v.State != "ringing-in" && v.State != "dialing" && v.State != "ringing-out" {
			ids = append(ids, v.ID)
		}
	}
	return s.acted(c, s.cfg.Phone.Conference(c.Context(), ids...))
}

func (s *Server) acted(c fiber.Ctx, err error) error {
	s.hub.poke()
	if err != nil {
		if !errors.Is(err, sipua.ErrBadNumber) {
			s.log.Info("page action failed", "path", c.Path(), "err", err)
		}
		return s.fail(c, fiber.StatusBadRequest, actionError(s.lang(), err))
	}
	return ok(c)
}

// selectAccount is POST /accounts/:id/select: the line calls go out on. The
// phone takes it at once; the settings keep it (sip.selected_account).
func (s *Server) selectAccount(c fiber.Ctx) error {
	id := c.Params("id")
	if !s.knownAccount(id) {
		return s.fail(c, fiber.StatusBadRequest, s.lang().T("err.noaccount"))
	}
	if s.cfg.Phone != nil {
		if err := s.cfg.Phone.SelectAccount(id); err != nil {
			return s.acted(c, err)
		}
	}
	_, err := s.cfg.Settings.Update(func(st *store.Settings) error { st.SIP.SelectedAccount = id; return nil })
	return s.acted(c, err)
}

// dialLink is GET /dial?uri=tel:...: the handler of tel:, sip: and callto:
// links. It only fills in the number and puts the focus on Call: a link that
// any web page or mail can hold never dials by itself, whoever opens it
// (issue 12 item 8). `softphone dial` dials at once through dialkey.go.
func (s *Server) dialLink(c fiber.Ctx) error {
	return s.renderPhone(c, normalizeNumber(c.Query("uri")))
}
