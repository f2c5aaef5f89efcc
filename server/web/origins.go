package web

import (
	"slices"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v3"
	"github.com/softphone/softphone/store"
	"github.com/softphone/softphone/views"
)

// asks is the open origin questions; none without the API's question box.
func (s *Server) asks() []string {
	if s.cfg.Origins == nil {
		return nil
	}
	return s.cfg.Origins.Asks()
}

func originsFragment(l views.L, asks []string, csrf string) templ.Component {
	return views.OriginAsks(l, asks, csrf)
}

// answerOrigin is POST /origins/answer: the person's Allow or Deny for a web
// origin that knocked on the API. Only the phone's own page (session, CSRF)
// can answer; the waiting request goes on (Allow) or gets 403 (Deny).
func (s *Server) answerOrigin(c fiber.Ctx) error {
	if s.cfg.Origins == nil {
		return s.fail(c, fiber.StatusNotFound, s.lang().T("origins.gone"))
	}
	origin := c.FormValue("origin")
	answer := c.FormValue("answer")
	if answer != "allow" && answer != "deny" {
		return s.fail(c, fiber.StatusBadRequest, s.lang().T("origins.gone"))
	}
	if err := s.cfg.Origins.Answer(origin, answer == "allow"); err != nil {
		s.hub.poke()
		return s.fail(c, fiber.StatusConflict, s.lang().T("origins.gone"))
	}
	s.log.Info("web origin answered on the phone page", "origin", origin, "answer", answer)
	s.hub.poke()
	if isHTMX(c) {
		return ok(c)
	}
	return c.Redirect().Status(fiber.StatusSeeOther).To("/")
}

// removeOrigin is POST /settings/origins/remove: the origin leaves
// api.allowed_origins; its next request to the API is a question again.
func (s *Server) removeOrigin(c fiber.Ctx) error {
	origin := c.FormValue("origin")
	if _, err := s.cfg.Settings.Update(func(st *store.Settings) error {
		st.API.AllowedOrigins = slices.DeleteFunc(st.API.AllowedOrigins, func(o string) bool { return o == origin })
		return nil
	}); err != nil {
		return s.fail(c, fiber.StatusInternalServerError, s.lang().T("err.internal"))
	}
	s.log.Info("web origin removed from the approved list", "origin", origin)
	if isHTMX(c) {
		return s.settingsPage(c)
	}
	return c.Redirect().Status(fiber.StatusSeeOther).To("/settings#sec-origins")
}
