package api

import (
	"errors"
	"strings"

	"github.com/gofiber/fiber/v3"
	"github.com/softphone/softphone/server/httplimit"
)

// bodyLimit is the largest request body taken (rest-api.md leaves it open;
// every body of this API is a few hundred bytes).
const bodyLimit = 64 << 10

// newApp builds the fiber app of one listener: the guard in front, then the
// routes of routes.go.
func (s *Server) newApp(l *listener) *fiber.App {
	cfg := fiber.Config{
		// fasthttp reads a body whole before any handler, into a buffer of
		// the size its Content-Length announces: at 1 MiB, 1,024
		// connections sending only headers held 1 GiB for the 10 s a
		// request may take. Above bodyLimit it answers at once, without
		// reading; the guard renders that 413 as JSON.
		BodyLimit: bodyLimit,
		ErrorHandler: func(c fiber.Ctx, err error) error {
			// Only errors raised before routing (a body above BodyLimit, a
			// broken request line) get here, after fiber ran the guard (which
			// counted the request); the guard renders all other errors.
			var fe *fiber.Error
			if errors.As(err, &fe) && fe.Code == fiber.StatusRequestEntityTooLarge {
				err = fail(fe.Code, msgTooLarge)
				// The body is still coming, unread: the close waits for it
				// so that the client reads this 413, not a reset.
				httplimit.Linger(c.RequestCtx().Conn())
			} else if errors.As(err, &fe) && fe.Code == fiber.StatusBadRequest {
				// fasthttp's parse errors quote the request as it came, its
				// headers (a token among them) and its buffer's size.
				err = fail(fe.Code, msgBadRequest)
			} else if errors.As(err, &fe) {
				err = fail(fe.Code, strings.ToLower(fe.Message))
			}
			// Headers too large (431) or too slow (408): fasthttp gave up
			// before a request existed, so the guard never counted it.
			if c.Locals(localsListener) == nil {
				status, _ := asHTTP(err)
				s.cfg.Metrics.APIRequest(status >= 400 && status < 500)
			}
			return s.renderErr(c, err)
		},
	}
	s.cfg.Limits.Apply(&cfg)
	app := fiber.New(cfg)
	app.Use(func(c fiber.Ctx) error { return s.front(c, l) })
	for _, r := range s.routes() {
		app.Add([]string{r.method}, fiberPath(r.path), r.handler)
	}
	return app
}

// front counts every request (api_requests_total, and refused ones: any 4xx)
// and renders errors as {"error": "..."} (rest-api.md "Errors").
func (s *Server) front(c fiber.Ctx, l *listener) error {
	// As c.Locals(localsListener, l), without the variadic slice Locals
	// takes (an allocation per request).
	c.RequestCtx().SetUserValue(localsListener, l)
	if err := s.guard(c, l); err != nil {
		_ = s.renderErr(c, err)
	}
	st := c.Response().StatusCode()
	s.cfg.Metrics.APIRequest(st >= 400 && st < 500)
	return nil
}

func (s *Server) renderErr(c fiber.Ctx, err error) error {
	status, msg := asHTTP(err)
	if status >= 500 {
		s.log.Error("request failed", "method", c.Method(), "path", c.Path(), "err", err)
	}
	c.Response().ResetBody()
	return c.Status(status).JSON(fiber.Map{"error": msg})
}

type localsKey int

const (
	localsListener localsKey = iota
	localsAuthed
)

// guard runs the checks every request passes, in this order: Host (DNS
// rebinding), Origin (approved on the phone page, else 403), token, route
// (group off or unknown: 404), method (405), body size and type; then the
// handler.
func (s *Server) guard(c fiber.Ctx, l *listener) error {
	st := s.cur.Load()
	// Refused here, before anything else, also when fasthttp already gave up
	// reading a body above its own limit and runs us from its error handler.
	if c.Request().Header.ContentLength() > bodyLimit {
		return fail(fiber.StatusRequestEntityTooLarge, msgTooLarge)
	}
	if !s.hostAllowed(c, l) {
		return fail(fiber.StatusForbidden, msgWrongHost)
	}
	origin := header(c, fiber.HeaderOrigin)
	if err := s.checkOrigin(c, origin, st); err != nil {
		return err
	}
	authed, err := s.checkToken(c)
	if err != nil {
		return err
	}
	c.RequestCtx().SetUserValue(localsAuthed, authed) // as c.Locals, without its allocation
	method := c.Method()
	// The route alone first: the list of allowed methods (an allocation
	// and a second walk of the table) is only needed for OPTIONS, 404 and
	// 405, not for the requests that are served.
	r := s.route(method, c.Path(), authed)
	var allow []string
	if r == nil || method == fiber.MethodOptions {
		r, allow = s.match(method, c.Path(), authed)
	}
	if method == fiber.MethodOptions {
		// A browser's preflight never carries the Authorization header the
		// real request will: it is answered for every method of the path.
		if origin != "" && c.Get(fiber.HeaderAccessControlRequestMethod) != "" {
			_, allow = s.match(method, c.Path(), true)
		}
		if len(allow) > 0 {
			return s.preflight(c, origin, allow)
		}
	}
	if origin != "" {
		c.Set(fiber.HeaderAccessControlAllowOrigin, origin)
		c.Set(fiber.HeaderAccessControlExposeHeaders, exposedHeaders)
		c.Set(fiber.HeaderVary, fiber.HeaderOrigin)
	}
	if r == nil {
		if len(allow) == 0 {
			return fail(fiber.StatusNotFound, msgNoEndpoint)
		}
		c.Set(fiber.HeaderAllow, strings.Join(allow, ", "))
		return fail(fiber.StatusMethodNotAllowed, msgWrongMethod)
	}
	if r.body {
		if err := checkBody(c, r.merge); err != nil {
			return err
		}
	}
	if !r.params {
		// The route is known: fiber's router would only find it again.
		// Handlers of paths with parameters read them from fiber's match.
		return r.handler(c)
	}
	return c.Next()
}

// header is the request header name, "" when absent; the common absent
// case costs no more than a look-up.
func header(c fiber.Ctx, name string) string {
	if len(c.Request().Header.Peek(name)) == 0 {
		return ""
	}
	return c.Get(name)
}

// exposedHeaders are the answer headers a page of another origin may read
// (Fetch standard, CORS): beyond the safelisted ones, those a client of this
// API needs (the new resource, a replayed dial, the methods of a path, the
// part of the audio sent).
const exposedHeaders = "Location, Idempotent-Replayed, Allow, Content-Range, Accept-Ranges"

// mimeMergePatch is the media type of a JSON merge patch (RFC 7396 4).
const mimeMergePatch = "application/merge-patch+json"

// checkBody refuses oversize bodies and bodies that are not JSON (with merge,
// a JSON merge patch may say so). Requiring a JSON media type also keeps a
// foreign web page from placing calls with a "simple" cross-origin request
// that skips the CORS preflight.
func checkBody(c fiber.Ctx, merge bool) error {
	body := c.Body()
	if len(body) > bodyLimit {
		return fail(fiber.StatusRequestEntityTooLarge, msgTooLarge)
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		return nil
	}
	ct := strings.ToLower(strings.TrimSpace(strings.SplitN(c.Get(fiber.HeaderContentType), ";", 2)[0]))
	if ct != fiber.MIMEApplicationJSON && (!merge || ct != mimeMergePatch) {
		return fail(fiber.StatusUnsupportedMediaType, msgNotJSON)
	}
	return nil
}
