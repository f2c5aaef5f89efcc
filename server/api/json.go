package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/google/uuid"
)

// ms is a moment as Unix milliseconds (rest-api.md "_ts"), nil (JSON null)
// when unknown.
func ms(t time.Time) *int64 {
	if t.IsZero() {
		return nil
	}
	v := t.UnixMilli()
	return &v
}

// param copies a path parameter: fiber reuses its memory after the handler
// returns (DEPENDENCIES.md).
func param(c fiber.Ctx, name string) string { return strings.Clone(c.Params(name)) }

// isUUID: all identifiers of calls and accounts are UUIDs (rest-api.md
// "Identifiers"); short ids like call-3 are not accepted.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	_, err := uuid.Parse(s)
	return err == nil
}

// decode reads a JSON body into v. An empty body is an empty object. Unknown
// fields are refused, so a client still sending the old camelCase names
// (accountId) hears about it instead of being half understood.
func decode(c fiber.Ctx, v any) error {
	body := bytes.TrimSpace(c.Body())
	if len(body) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te) && te.Field != "":
			return failf(fiber.StatusBadRequest, "%s must be %s", jsonPath(te.Field), jsonKind(te.Type.Kind().String()))
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			return failf(fiber.StatusBadRequest, "unknown field %s", strings.TrimPrefix(err.Error(), "json: unknown field "))
		}
		return fail(fiber.StatusBadRequest, msgMalformed)
	}
	if dec.More() {
		return fail(fiber.StatusBadRequest, msgMalformed)
	}
	return nil
}

// jsonPath is the request's own name of a field: encoding/json puts the Go
// names of embedded structs in the path ("Account.port"); every JSON name of
// this API is snake_case (rest-api.md "Naming"), so a part that starts with
// a capital letter is such a Go name and is left out.
func jsonPath(field string) string {
	parts := strings.Split(field, ".")
	out := parts[:0]
	for _, p := range parts {
		if p != "" && (p[0] < 'A' || p[0] > 'Z') {
			out = append(out, p)
		}
	}
	return strings.Join(out, ".")
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "slice":
		return "a list"
	case "map", "struct":
		return "an object"
	}
	return "a number"
}

// created answers 201 with v.
func created(c fiber.Ctx, v any) error { return c.Status(fiber.StatusCreated).JSON(v) }
