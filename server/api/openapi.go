package api

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"sync"

	"github.com/gofiber/fiber/v3"
)

// openapiJSON describes this interface (OpenAPI 3.1). openapi_test.go fails
// when it and the route table disagree, and contract_test.go validates every
// answer the tests receive against it.
//
//go:embed openapi.json
var openapiJSON []byte

// openAPI: GET /openapi.json, with "servers" naming the address this
// listener really has (the file says the default port, 8377).
func (s *Server) openAPI(c fiber.Ctx) error {
	l, _ := c.Locals(localsListener).(*listener)
	body := openapiJSON
	if l != nil {
		var err error
		if body, err = l.openapi(); err != nil {
			return err
		}
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
	return c.Send(body)
}

// openapi is the document of this listener, made once.
func (l *listener) openapi() ([]byte, error) {
	l.docOnce.Do(func() {
		addr := "http://127.0.0.1"
		if l.ln != nil {
			addr = "http://" + l.ln.Addr().String()
		}
		servers, _ := json.Marshal([]map[string]string{{"url": addr,
			"description": "The address this phone's API listens on now (loopback only)."}})
		l.doc, l.docErr = replaceTopLevel(openapiJSON, "servers", servers)
	})
	return l.doc, l.docErr
}

// replaceTopLevel gives doc (a JSON object) with the value of key replaced,
// keeping the order of the other keys.
func replaceTopLevel(doc []byte, key string, val json.RawMessage) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.WriteByte('{')
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if k == key {
			v = val
		}
		if out.Len() > 1 {
			out.WriteByte(',')
		}
		name, _ := json.Marshal(k)
		out.Write(name)
		out.WriteByte(':')
		out.Write(v)
	}
	out.WriteByte('}')
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, out.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	return pretty.Bytes(), nil
}

// listenerDoc is the lazily made document of one listener.
type listenerDoc struct {
	docOnce sync.Once
	doc     []byte
	docErr  error
}
