package api

import (
	"fmt"
	"strings"

	"github.com/gofiber/fiber/v3"
)

// phoneError maps an error of the phone to the status and message of
// rest-api.md "Errors". The phone's sentinels carry the spec's messages.
func phoneError(err error) error {
	text := err.Error()
	for _, m := range []string{msgNoCall, msgNoNumber, msgNoDigits, msgNoTarget, msgAccountGone} {
		if strings.Contains(text, m) {
			return fail(fiber.StatusBadRequest, m)
		}
	}
	if strings.Contains(text, "no account") {
		return fail(fiber.StatusBadRequest, msgNoPhone)
	}
	return fmt.Errorf("phone: %w", err)
}
