package api

import (
	"errors"

	"github.com/gofiber/fiber/v3"
	"github.com/softphone/softphone/sipua"
)

// msgNotRinging answers a pickup of a contact whose line does not ring.
const msgNotRinging = "the contact's line is not ringing"

// pickup: POST /contacts/{id}/pickup (Calls group): takes the call ringing
// at a watched contact, answering 201 {"id": ...} like POST /calls. Unknown
// contact: 404; line not ringing (or not watched): 409.
func (s *Server) pickup(c fiber.Ctx) error {
	ct, err := s.contact(c)
	if err != nil {
		return err
	}
	cl, err := s.cfg.Phone.Pickup(c.Context(), ct.ID)
	if errors.Is(err, sipua.ErrNotRinging) {
		return fail(fiber.StatusConflict, msgNotRinging)
	}
	if err != nil {
		return phoneError(err)
	}
	c.Set(fiber.HeaderLocation, "/calls/"+cl.ID)
	return created(c, fiber.Map{"id": cl.ID})
}
