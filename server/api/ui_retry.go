package api

import (
	"context"
	"errors"

	"github.com/gofiber/fiber/v3"
	"github.com/softphone/softphone/store"
)

// Transcripts runs a recording's transcript again (*sipua.Transcripts
// satisfies it).
type Transcripts interface {
	Retry(ctx context.Context, recordingID string) error
}

// uiRetryTranscript: POST /ui/recordings/{id}/transcript, the "Try again"
// of a failed transcript on the recording's page (README: "a failed one can
// be run again"; nothing did). Only a failed transcript is run again (a done
// one is never replaced from the page), and only while a recogniser is set;
// either way the answer is 303 to the page, which shows what became of it
// (waiting, or why not). A form's POST from a page of another origin is
// refused by guard (the Origin check), as every request of such a page.
func (s *Server) uiRetryTranscript(c fiber.Ctx) error {
	r, err := s.recording(c)
	if err != nil {
		return err
	}
	page := "/ui/recordings/" + r.ID
	t, err := s.cfg.DB.GetTranscript(c.Context(), r.ID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if err == nil && t.Status == "failed" && s.cfg.Transcripts != nil && s.recogniserSet() {
		if err := s.cfg.Transcripts.Retry(c.Context(), r.ID); err != nil {
			return err
		}
	}
	return c.Redirect().Status(fiber.StatusSeeOther).To(page)
}

// recogniserSet tells whether transcripts can be made now.
func (s *Server) recogniserSet() bool {
	r := s.cur.Load().Transcription.Recogniser
	return r != "" && r != "none"
}
