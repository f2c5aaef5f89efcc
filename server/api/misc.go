package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/gofiber/fiber/v3"
	"github.com/gofiber/fiber/v3/middleware/adaptor"
)

// strictUnmarshal decodes a settings document, refusing unknown keys.
func strictUnmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fmt.Errorf("%w: %s must be %s", errPatch, te.Field, jsonKind(te.Type.Kind().String()))
		}
		return fmt.Errorf("%w: %s", errPatch, strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

// metrics: GET /metrics, the Prometheus text format.
func (s *Server) metrics(c fiber.Ctx) error {
	return adaptor.HTTPHandler(s.cfg.Metrics.Handler())(c)
}

// webhookTest: POST /webhooks/test (token) sends the test event and answers
// {"status": <receiver's status>, "body": "<start of its answer>"}; a
// receiver that cannot be reached gives 502 with the reason.
func (s *Server) webhookTest(c fiber.Ctx) error {
	status, body, err := s.cfg.WebhookTest(c.Context())
	if err != nil {
		return failf(fiber.StatusBadGateway, "the test event was not delivered: %v", err)
	}
	if len(body) > 1024 {
		body = body[:1024]
	}
	return c.JSON(fiber.Map{"status": status, "body": body})
}
