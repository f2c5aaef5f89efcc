package web

import (
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v3"
)

// sessionCookie names the cookie after the port: cookies are not kept apart
// by port, and two phones (two homes) may run side by side.
func (s *Server) sessionCookie() string { return "softphone_session_" + strconv.Itoa(s.port) }

const csrfHeader = "X-CSRF-Token"
const csrfField = "csrf"

// localsSession and localsCSRF are the keys of c.Locals set by requireSession.
const (
	localsSession = "session"
	localsCSRF    = "csrf"
)

// checkHost refuses any request whose raw Host header is not a loopback name
// with our port: a web page that rebinds its DNS name to 127.0.0.1 sends its
// own name here (DNS rebinding). The raw header is read on purpose; fiber's
// Hostname() may trust X-Forwarded-Host.
func (s *Server) checkHost(c fiber.Ctx) error {
	host := string(c.Request().Header.Host())
	p := ":" + strconv.Itoa(s.port)
	switch host {
	case "127.0.0.1" + p, "localhost" + p, "[::1]" + p:
		return c.Next()
	}
	return c.Status(fiber.StatusForbidden).SendString("forbidden: not a loopback host name")
}

// headers adds the security headers of every answer.
func headers(c fiber.Ctx) error {
	c.Set("X-Content-Type-Options", "nosniff")
	c.Set("X-Frame-Options", "DENY")
	c.Set("Referrer-Policy", "no-referrer")
	c.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; media-src 'self' blob:; "+
		"style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
	return c.Next()
}

// login redeems the one-time key of the printed link: it sets the session
// cookie and redirects to the page itself (or a local path in next).
func (s *Server) login(c fiber.Ctx) error {
	key := c.Query("key")
	if key == "" {
		return c.Next()
	}
	id := s.sessions.redeem(key)
	if id == "" {
		return s.gate(c, true)
	}
	c.Cookie(&fiber.Cookie{
		Name: s.sessionCookie(), Value: id, Path: "/", HTTPOnly: true,
		SameSite: fiber.CookieSameSiteStrictMode, SessionOnly: true,
	})
	c.Set("Cache-Control", "no-store")
	next := c.Query("next")
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") {
		next = "/"
	}
	return c.Redirect().Status(fiber.StatusSeeOther).To(next)
}

// requireSession lets only requests with a valid session cookie through;
// others get the short page that says how to open the phone, and no data.
func (s *Server) requireSession(c fiber.Ctx) error {
	id := c.Cookies(s.sessionCookie())
	tok, ok := s.sessions.get(id)
	if !ok {
		return s.gate(c, false)
	}
	c.Locals(localsSession, id)
	c.Locals(localsCSRF, tok)
	c.Locals("lang", s.lang())
	c.Set("Cache-Control", "no-store")
	return c.Next()
}

// checkCSRF guards every request that changes something: the browser must
// say it comes from our own origin (Origin, Sec-Fetch-Site), and it must carry
// the session's token in the X-CSRF-Token header or the csrf form field. The
// SameSite=Strict cookie is the third layer.
func (s *Server) checkCSRF(c fiber.Ctx) error {
	switch c.Method() {
	case fiber.MethodGet, fiber.MethodHead, fiber.MethodOptions:
		return c.Next()
	}
	if !s.sameOrigin(c) {
		return c.Status(fiber.StatusForbidden).SendString("forbidden: cross-site request")
	}
	tok := c.Get(csrfHeader)
	if tok == "" {
		tok = c.FormValue(csrfField)
	}
	id, _ := c.Locals(localsSession).(string)
	if !s.sessions.checkCSRF(id, tok) {
		return c.Status(fiber.StatusForbidden).SendString("forbidden: missing or wrong CSRF token")
	}
	return c.Next()
}

func (s *Server) sameOrigin(c fiber.Ctx) bool {
	if site := c.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		return false
	}
	origin := c.Get("Origin")
	if origin == "" {
		return true // older clients: the token and the Strict cookie still hold
	}
	return origin == "http://"+string(c.Request().Header.Host())
}

func (s *Server) gate(c fiber.Ctx, used bool) error {
	c.Set("Cache-Control", "no-store")
	return s.render(c.Status(fiber.StatusUnauthorized), gatePage(s.lang(), used))
}
