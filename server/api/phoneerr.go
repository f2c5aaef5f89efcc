package api

import (
	"errors"
	"fmt"

	"github.com/gofiber/fiber/v3"
	"github.com/softphone/softphone/sipua"
)

// phoneError maps an error of the phone to a status and message. The first
// five are rest-api.md "Errors" (the sentinels carry the spec's texts); the
// rest are ours (README, API section).
func phoneError(err error) error {
	for _, sentinel := range []error{sipua.ErrNoCall, sipua.ErrNoNumber, sipua.ErrNoDigits, sipua.ErrNoTarget, sipua.ErrAccountGone,
		sipua.ErrSipsNeedsTLS} {
		if errors.Is(err, sentinel) {
			return fail(fiber.StatusBadRequest, sentinel.Error())
		}
	}
	switch {
	case errors.Is(err, sipua.ErrBadNumber):
		return fail(fiber.StatusBadRequest, sipua.ErrBadNumber.Error()) // issue 12: nothing sent
	case errors.Is(err, sipua.ErrNoAccount):
		return fail(fiber.StatusBadRequest, msgNoPhone)
	case errors.Is(err, sipua.ErrBadDigit):
		return fail(fiber.StatusBadRequest, msgBadDigit)
	case errors.Is(err, sipua.ErrCallState):
		return fail(fiber.StatusConflict, msgCallState)
	case errors.Is(err, sipua.ErrTransferFailed):
		return fail(fiber.StatusBadGateway, msgTransferFailed)
	case errors.Is(err, sipua.ErrHoldFirst):
		return fail(fiber.StatusConflict, sipua.ErrHoldFirst.Error())
	case errors.Is(err, sipua.ErrNotServing):
		return fail(fiber.StatusServiceUnavailable, msgNotServing)
	}
	return fmt.Errorf("phone: %w", err)
}
