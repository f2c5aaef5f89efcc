package web

import (
	"github.com/gofiber/fiber/v3"
	assets "github.com/softphone/softphone/static"
)

// serviceWorker is GET /sw.js: served from the root so its scope is the whole
// site; it only routes clicks on notification buttons (Answer, Decline) back
// to the page. It holds no data, so it needs no session.
func (s *Server) serviceWorker(c fiber.Ctx) error {
	b, err := assets.FS.ReadFile("dist/sw.js")
	if err != nil {
		return err
	}
	c.Type("js", "utf-8")
	c.Set("Cache-Control", "no-cache")
	return c.Send(b)
}
