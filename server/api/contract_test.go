package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// The contract check: every answer the tests of this package receive passes
// through contractTransport, which validates it against the /openapi.json
// the same server serves (kin-openapi's openapi3filter, JSON Schema 2020-12
// for OpenAPI 3.1). An answer whose status, media type, body or headers the
// document does not describe fails the test that received it, so the
// document cannot drift from the code.
//
// When a handler learns a new status: add it under the operation's
// "responses" in openapi.json (an error is {"$ref":
// "#/components/schemas/Error"} under "application/json"); a new header goes
// into that response's "headers" (see "components/headers"). The failure
// message says which operation and status are missing.

// transportHeaders are sent on many answers and described once, in the
// document's info.description (CORS, caching, framing), not per response.
var transportHeaders = []string{"Date", "Content-Length", "Content-Type", "Connection", "Transfer-Encoding",
	"Keep-Alive", "Vary", "Access-Control-Allow-Origin", "Access-Control-Expose-Headers",
	"Access-Control-Allow-Methods", "Access-Control-Allow-Headers", "Access-Control-Max-Age",
	"Access-Control-Allow-Private-Network", "X-Frame-Options", "Content-Security-Policy", "X-Content-Type-Options"}

func init() {
	// HTML pages are checked as text (their schema is a string).
	openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder)
}

// contractDoc is one served document with its router, per API address.
type contractDoc struct {
	doc    *openapi3.T
	router routers.Router
}

var contractDocs sync.Map // host -> *contractDoc

// contractTransport validates each answer; failures go to t.
type contractTransport struct {
	t    testing.TB
	base http.RoundTripper
}

// apiClient is the client of every test request of this package.
func apiClient(t testing.TB) *http.Client {
	return &http.Client{Transport: &contractTransport{t: t, base: http.DefaultTransport}}
}

// served loads the document the server at host serves. Its servers entry
// must be that very address: the router below matches only it.
func (ct *contractTransport) served(host string) (*contractDoc, error) {
	if d, ok := contractDocs.Load(host); ok {
		return d.(*contractDoc), nil
	}
	req, err := http.NewRequest("GET", "http://"+host+"/openapi.json", nil)
	if err != nil {
		return nil, err
	}
	res, err := ct.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != 200 {
		return nil, fmt.Errorf("GET /openapi.json: %d %s", res.StatusCode, b)
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(b)
	if err != nil {
		return nil, fmt.Errorf("openapi.json does not load: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("openapi.json is not a valid OpenAPI document: %w", err)
	}
	if len(doc.Servers) != 1 || doc.Servers[0].URL != "http://"+host {
		return nil, fmt.Errorf("openapi.json servers %v, want the address listened on, http://%s", doc.Servers, host)
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, err
	}
	d := &contractDoc{doc: doc, router: router}
	contractDocs.Store(host, d)
	return d, nil
}

func (ct *contractTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	// The document is fetched first: the request may move or stop the API.
	d, derr := ct.served(req.URL.Host)
	res, err := ct.base.RoundTrip(req)
	if err != nil {
		return res, err
	}
	if derr != nil {
		err = derr
	} else {
		err = ct.check(d, req, res)
	}
	if err != nil {
		ct.t.Errorf("answer not described by openapi.json: %s %s -> %d: %v", req.Method, req.URL.RequestURI(), res.StatusCode, err)
	}
	return res, nil
}

// check validates one answer. The body is read and put back, except for an
// event stream, which stays open (its status and headers are checked).
func (ct *contractTransport) check(d *contractDoc, req *http.Request, res *http.Response) error {
	var body []byte
	var err error
	stream := strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream")
	if !stream {
		body, err = io.ReadAll(res.Body)
		res.Body.Close()
		res.Body = io.NopCloser(bytes.NewReader(body))
		if err != nil {
			return err
		}
	}
	// Routed by the address dialled: tests send foreign Host headers on purpose.
	rreq := req.Clone(context.Background())
	rreq.Host = req.URL.Host
	if rreq.URL, err = url.Parse(req.URL.String()); err != nil {
		return err
	}
	rreq.Method = req.Method
	if req.Method == http.MethodHead {
		rreq.Method = http.MethodGet
	}
	route, params, err := d.router.FindRoute(rreq)
	if err != nil {
		return ct.unrouted(d, req, res, body, err)
	}
	if req.Method == http.MethodHead {
		if len(body) != 0 {
			return fmt.Errorf("HEAD answered with a body")
		}
	}
	op := route.Operation
	resp := op.Responses.Status(res.StatusCode)
	if resp == nil || resp.Value == nil {
		return fmt.Errorf("status %d is not in responses of %s %s (add it to openapi.json)", res.StatusCode, route.Method, route.Path)
	}
	if err := undeclaredHeaders(res.Header, resp.Value); err != nil {
		return fmt.Errorf("%s %s %d: %w", route.Method, route.Path, res.StatusCode, err)
	}
	if len(resp.Value.Content) == 0 && len(body) != 0 {
		return fmt.Errorf("%s %s %d: the document says no body, the answer has %d bytes", route.Method, route.Path, res.StatusCode, len(body))
	}
	if len(resp.Value.Content) > 0 && res.Header.Get("Content-Type") == "" && req.Method != http.MethodHead {
		return fmt.Errorf("%s %s %d: no Content-Type", route.Method, route.Path, res.StatusCode)
	}
	if stream || req.Method == http.MethodHead {
		if resp.Value.Content.Get(res.Header.Get("Content-Type")) == nil && req.Method != http.MethodHead {
			return fmt.Errorf("%s %s %d: media type %q not described", route.Method, route.Path, res.StatusCode, res.Header.Get("Content-Type"))
		}
		return nil
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: rreq, PathParams: params, Route: route},
		Status:                 res.StatusCode,
		Header:                 res.Header,
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	in.SetBodyBytes(body)
	return openapi3filter.ValidateResponse(context.Background(), in)
}

// unrouted checks an answer to a path or method the document does not have:
// it must be one of the refusals every operation shares, with the Error body.
func (ct *contractTransport) unrouted(d *contractDoc, req *http.Request, res *http.Response, body []byte, ferr error) error {
	if req.Method == http.MethodOptions {
		// CORS preflight or OPTIONS: 204 with Allow (described in info).
		if res.StatusCode == 204 && res.Header.Get("Allow") != "" && len(body) == 0 {
			return nil
		}
	}
	name := map[int]string{401: "Unauthorized", 403: "Forbidden", 404: "NotFound", 405: "MethodNotAllowed", 413: "TooLarge", 415: "NotJSON"}[res.StatusCode]
	if name == "" {
		return fmt.Errorf("no operation for it (%v) and status %d is no shared refusal", ferr, res.StatusCode)
	}
	ref := d.doc.Components.Responses[name]
	if ref == nil || ref.Value == nil {
		return fmt.Errorf("components/responses/%s missing", name)
	}
	if err := undeclaredHeaders(res.Header, ref.Value); err != nil {
		return fmt.Errorf("components/responses/%s: %w", name, err)
	}
	mt := ref.Value.Content.Get(res.Header.Get("Content-Type"))
	if mt == nil || mt.Schema == nil {
		return fmt.Errorf("components/responses/%s: media type %q not described", name, res.Header.Get("Content-Type"))
	}
	v, err := decodeJSON(body)
	if err != nil {
		return err
	}
	return mt.Schema.Value.VisitJSON(v, openapi3.EnableJSONSchema2020(), openapi3.VisitAsResponse())
}

// undeclaredHeaders fails on a header the answer carries that the response
// does not describe (transport headers aside).
func undeclaredHeaders(h http.Header, r *openapi3.Response) error {
	for k := range h {
		if slices.ContainsFunc(transportHeaders, func(t string) bool { return strings.EqualFold(t, k) }) {
			continue
		}
		found := false
		for name := range r.Headers {
			if strings.EqualFold(name, k) {
				found = true
			}
		}
		if !found {
			return fmt.Errorf("header %s is sent but not described", k)
		}
	}
	return nil
}

func decodeJSON(b []byte) (any, error) {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("body %q is not JSON: %w", b, err)
	}
	return v, nil
}
