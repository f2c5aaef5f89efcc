package web

import "github.com/valyala/fasthttp"

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
