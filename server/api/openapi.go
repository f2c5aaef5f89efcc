package api

import (
	_ "embed"

	"github.com/gofiber/fiber/v3"
)

// openapiJSON describes this interface (OpenAPI 3.1). openapi_test.go fails
// when it and the route table disagree.
//
//go:embed openapi.json
var openapiJSON []byte

// openAPI: GET /openapi.json.
func (s *Server) openAPI(c fiber.Ctx) error {
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
	return c.Send(openapiJSON)
}
