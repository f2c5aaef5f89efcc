package api

import (
	"strings"

	"github.com/gofiber/fiber/v3"
	"github.com/softphone/softphone/views"
)

type listingEntry struct {
	Method      string `json:"method"`
	Path        string `json:"path"`
	Description string `json:"description"`
	Group       string `json:"group"`          // access group; "" = always served
	Token       bool   `json:"token"`          // needs the token
	Href        string `json:"href,omitempty"` // link, for entries that read data
}

// listing: GET /, what this caller is served, in English (rest-api.md 8).
// Entries that read data (GET without a path parameter) carry a link;
// token-only entries appear only when the request carries the right token.
// JSON by default; an HTML page when the client prefers text/html (a browser).
func (s *Server) listing(c fiber.Ctx) error {
	authed, _ := c.Locals(localsAuthed).(bool)
	base := "http://" + string(c.Request().Header.Host())
	st := s.cur.Load()
	out := make([]listingEntry, 0, len(s.table()))
	for i := range s.table() {
		r := &s.table()[i]
		if !s.visible(r, st, authed) {
			continue
		}
		e := listingEntry{Method: r.method, Path: r.path, Description: r.summary, Group: r.group, Token: r.token}
		if r.method == fiber.MethodGet && !strings.Contains(r.path, "{") {
			e.Href = base + r.path
		}
		out = append(out, e)
	}
	if c.Accepts(fiber.MIMEApplicationJSON, fiber.MIMETextHTML) == fiber.MIMETextHTML {
		// A person in a browser: the same list as a page with links.
		rows := make([]views.APIEntry, len(out))
		for i, e := range out {
			rows[i] = views.APIEntry{Method: e.Method, Path: e.Path, Description: e.Description, Href: e.Href, Token: e.Token}
		}
		return render(c, views.APIIndexPage(rows, base+"/openapi.json"))
	}
	return c.JSON(fiber.Map{
		"name":      "softphone local control API",
		"about":     "Everything this interface serves to you now. GET entries with a link read data; POST, PUT, PATCH and DELETE act. Errors are {\"error\": \"...\"}.",
		"openapi":   base + "/openapi.json",
		"endpoints": out,
	})
}
