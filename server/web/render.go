package web

import (
	"bytes"
	"errors"
	"net/url"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v3"
	"github.com/softphone/softphone/views"
)

// render writes a templ component as the HTML answer.
func (s *Server) render(c fiber.Ctx, comp templ.Component) error {
	var buf bytes.Buffer
	if err := comp.Render(c.Context(), &buf); err != nil {
		return err
	}
	c.Type("html", "utf-8")
	return c.Send(buf.Bytes())
}

// lang is the language of the pages now (appearance.language).
func (s *Server) lang() views.L {
	return views.L(s.cfg.Settings.Get().Appearance.Language)
}

// page fills what every full page needs.
func (s *Server) page(c fiber.Ctx, nav string) views.Page {
	st := s.cfg.Settings.Get()
	csrf, _ := c.Locals(localsCSRF).(string)
	p := views.Page{L: views.L(st.Appearance.Language), Theme: st.Appearance.Theme, CSRF: csrf, Nav: nav}
	if p.Theme == "" {
		p.Theme = "system"
	}
	if s.cfg.API != nil && st.Integration.Enabled && st.API.Enabled {
		if addr := s.cfg.API.Addr(); addr != "" {
			p.RecordingsURL = (&url.URL{Scheme: "http", Host: addr, Path: "/ui"}).String()
		}
	}
	p.OriginAsks = s.asks()
	p.SecretsFallback = s.cfg.KeyringFallback || (s.cfg.Secrets != nil && s.cfg.Secrets.Fallback())
	p.DiskFull = s.diskFull()
	p.Notices = s.notices(p.L)
	return p
}

// isHTMX tells a request made by htmx (a fragment is wanted, not a page).
func isHTMX(c fiber.Ctx) bool { return c.Get("HX-Request") == "true" }

// fail answers an action that went wrong: htmx requests get the message in
// the page's alert area (the bar's own one for the bar's controls), others a
// plain text error.
func (s *Server) fail(c fiber.Ctx, status int, msg string) error {
	msg = views.StoreMsg(s.lang(), msg) // the English sentences of errors, in the page's language
	if isHTMX(c) {
		c.Set("HX-Retarget", "#flash")
		if c.Get("X-Softphone-Place") == "callbar" {
			// An action of the live-call bar: the words go beside the bar,
			// which is always in view; #flash may be scrolled away.
			c.Set("HX-Retarget", "#callbar-msg")
		}
		c.Set("HX-Reswap", "innerHTML")
		return s.render(c.Status(status), views.Flash(msg))
	}
	return c.Status(status).SendString(msg)
}

// errorHandler turns an unexpected error into a 500 without details (they
// may hold paths or secrets) and logs it.
func (s *Server) errorHandler(c fiber.Ctx, err error) error {
	var fe *fiber.Error
	if errors.As(err, &fe) && fe.Code == fiber.StatusBadRequest {
		// A request fasthttp could not parse: its error quotes the request
		// as it came, the session cookie among its headers.
		return c.Status(fe.Code).SendString("Bad Request")
	}
	if errors.As(err, &fe) && fe.Code == fiber.StatusRequestEntityTooLarge {
		// A body over the limit (a contacts file the page did not stop):
		// fasthttp answers before reading it, so the close waits for the
		// rest (else the browser saw a reset, not this answer), and the
		// page says it in words. No session was checked yet: the answer
		// holds nothing but the sentence.
		s.linger(c)
		return s.fail(c, fe.Code, s.lang().T("err.toolarge"))
	}
	if errors.As(err, &fe) {
		return c.Status(fe.Code).SendString(fe.Message)
	}
	s.log.Error("web: request failed", "path", c.Path(), "err", err)
	return s.fail(c, fiber.StatusInternalServerError, s.lang().T("err.internal"))
}

// ok answers an action that needs no content: the live list shows its effect.
func ok(c fiber.Ctx) error { return c.SendStatus(fiber.StatusNoContent) }

func gatePage(l views.L, used bool) templ.Component { return views.Gate(l, used) }
