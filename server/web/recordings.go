package web

import (
	"github.com/gofiber/fiber/v3"
	"github.com/softphone/softphone/views"
)

// recordingsPage is GET /recordings: the API's /ui pages when the local API
// is on (they serve the audio), else our own list.
func (s *Server) recordingsPage(c fiber.Ctx) error {
	p := s.fullPage(c, "recordings")
	if p.RecordingsURL != "" {
		return c.Redirect().Status(fiber.StatusSeeOther).To(p.RecordingsURL)
	}
	if s.cfg.DB == nil {
		return s.fail(c, fiber.StatusServiceUnavailable, s.lang().T("err.nodb"))
	}
	recs, err := s.cfg.DB.ListRecordings(c.Context(), 200)
	if err != nil {
		return err
	}
	return s.render(c, views.SavedCallsPage(p, recs))
}
