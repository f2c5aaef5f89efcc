package web

import (
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/softphone/softphone/server/httplimit"
	"github.com/valyala/fasthttp"
)

// strangerBodyLimit bounds the body of a request without a session: none
// needs more than a small form (POST /dial with the home's key); the answer
// is the gate page anyway. fasthttp reads a body whole before any handler,
// into a buffer of the size its Content-Length announces: at the server's
// BodyLimit (8 MiB, for a contacts import) any local program could make
// the 1,024 connections a port takes hold 8 GiB by sending headers only,
// for the 10 s a request may take.
const strangerBodyLimit = 64 << 10

// requestConfig is fasthttp's HeaderReceived: the phone's own pages (a
// session cookie) may send up to BodyLimit, anyone else strangerBodyLimit.
// Above it fasthttp answers 413 at once, without reading the body.
func (s *Server) requestConfig(h *fasthttp.RequestHeader) fasthttp.RequestConfig {
	if _, ok := s.sessions.get(string(h.Cookie(s.sessionCookie()))); ok {
		return fasthttp.RequestConfig{}
	}
	return fasthttp.RequestConfig{MaxRequestBodySize: strangerBodyLimit}
}

// sessionLinger bounds what the close after a 413 reads of the rest of a
// body sent by the phone's own page: Firefox reads no answer before its
// upload ends, and a close after httplimit's 1 MiB reset its connection,
// so the page heard nothing (a contacts file the page's own check missed).
const (
	sessionLingerBytes = 64 << 20
	sessionLingerTime  = 10 * time.Second
)

// linger ends the connection of a 413 in stages (httplimit.Linger): for
// the phone's own page up to the body's announced length (at most
// sessionLingerBytes), for anyone else httplimit's small default.
func (s *Server) linger(c fiber.Ctx) {
	conn := c.RequestCtx().Conn()
	if _, ok := s.sessions.get(c.Cookies(s.sessionCookie())); !ok {
		httplimit.Linger(conn)
		return
	}
	n := int64(c.Request().Header.ContentLength())
	if n <= 0 || n > sessionLingerBytes {
		n = sessionLingerBytes
	}
	httplimit.LingerFor(conn, n, sessionLingerTime)
}
