package web

import (
	"github.com/gofiber/fiber/v3"
)

// SIPTracer is offered by a phone that keeps a trace of recent SIP messages
// (settings "Diagnostics: a SIP trace of recent messages to download"). It is
// optional: the download appears only when the phone has it.
type SIPTracer interface {
	SIPTrace() string
}

func (s *Server) tracer() SIPTracer {
	t, _ := s.cfg.Phone.(SIPTracer)
	return t
}

// sipTrace is GET /diagnostics/sip-trace.txt.
func (s *Server) sipTrace(c fiber.Ctx) error {
	t := s.tracer()
	if t == nil {
		return fiber.ErrNotFound
	}
	c.Set("Content-Type", "text/plain; charset=utf-8")
	c.Set("Content-Disposition", `attachment; filename="sip-trace.txt"`)
	return c.SendString(t.SIPTrace())
}
