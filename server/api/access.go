package api

import (
	"crypto/subtle"
	"errors"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/softphone/softphone/store"
)

// hostAllowed accepts only a loopback name with our port in the raw Host
// header (DNS rebinding: a foreign page whose name resolves to 127.0.0.1
// sends its own name). c.Hostname() is not used: it may trust
// X-Forwarded-Host (DEPENDENCIES.md). The three usual forms are compared as
// bytes first (l.hosts); anything else takes the general check.
func (s *Server) hostAllowed(c fiber.Ctx, l *listener) bool {
	if l == nil {
		return false
	}
	h := c.Request().Header.Host()
	for _, want := range l.hosts {
		if asciiEqualFold(h, want) {
			return true
		}
	}
	return hostMatches(string(h), l.port)
}

// hostMatches is the general check of hostAllowed: a loopback name and
// port, the port in digits without a sign or leading zero.
func hostMatches(host string, port int) bool {
	h, p, err := net.SplitHostPort(host)
	if err != nil {
		return false
	}
	n, err := strconv.Atoi(p)
	return err == nil && p[0] != '0' && p[0] != '+' && n == port && isLoopbackName(h)
}

// asciiEqualFold compares b with the lower-case ASCII want, ignoring the
// case of ASCII letters only. bytes.EqualFold would also fold Unicode: it
// takes "localhoſt" (a long s) for "localhost", which the general check
// (strings.ToLower) refuses.
func asciiEqualFold(b, want []byte) bool {
	if len(b) != len(want) {
		return false
	}
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != want[i] {
			return false
		}
	}
	return true
}

// loopbackHosts are the Host headers hostMatches accepts as a client
// writes them: localhost, 127.0.0.1 and [::1] with the port.
func loopbackHosts(port int) [][]byte {
	p := strconv.Itoa(port)
	return [][]byte{[]byte("127.0.0.1:" + p), []byte("localhost:" + p), []byte("[::1]:" + p)}
}

func isLoopbackName(h string) bool {
	switch strings.ToLower(h) {
	case "localhost", "127.0.0.1", "::1":
		return true
	}
	return false
}

// originAllowed: the API's own origin, and the origins the person approved
// on the phone page (api.allowed_origins, issue 12 item 7). Nothing else:
// an empty list allows no foreign page.
func originAllowed(origin string, allowed []string, port int) bool {
	o := strings.TrimSuffix(strings.ToLower(origin), "/")
	for _, self := range []string{"http://127.0.0.1:", "http://localhost:", "http://[::1]:"} {
		if o == self+strconv.Itoa(port) {
			return true
		}
	}
	for _, a := range allowed {
		if strings.TrimSuffix(strings.ToLower(a), "/") == o {
			return true
		}
	}
	return false
}

// checkOrigin lets a request with a foreign Origin through only once the
// person approved that origin; the first knock puts the question on the
// phone page and waits for the answer (Approvals.ask). Programs that send no
// Origin keep what rest-api.md gives any local program.
func (s *Server) checkOrigin(c fiber.Ctx, origin string, st *store.Settings) error {
	if origin == "" || originAllowed(origin, st.API.AllowedOrigins, st.API.Port) {
		return nil
	}
	// Approved a moment ago: the settings watcher may not have run yet.
	if fresh := s.cfg.Settings.Get(); originAllowed(origin, fresh.API.AllowedOrigins, fresh.API.Port) {
		return nil
	}
	l, _ := c.Locals(localsListener).(*listener)
	var stop <-chan struct{}
	if l != nil {
		stop = l.stop
	}
	if s.asks.ask(c.Context(), stop, origin) {
		return nil
	}
	// The page may read why (its developer sees the message in fetch).
	if validOrigin(origin) {
		c.Set(fiber.HeaderAccessControlAllowOrigin, origin)
		c.Set(fiber.HeaderVary, fiber.HeaderOrigin)
	}
	return fail(fiber.StatusForbidden, msgWrongOrigin)
}

// preflight answers a CORS preflight (and Chrome's private network access
// preflight) for a path that exists; other OPTIONS requests get Allow.
func (s *Server) preflight(c fiber.Ctx, origin string, allow []string) error {
	allowed := strings.Join(append(slices.Clone(allow), fiber.MethodOptions), ", ")
	c.Set(fiber.HeaderAllow, allowed)
	if origin != "" {
		c.Set(fiber.HeaderAccessControlAllowOrigin, origin)
		c.Set(fiber.HeaderVary, "Origin, Access-Control-Request-Method, Access-Control-Request-Headers")
		c.Set(fiber.HeaderAccessControlAllowMethods, allowed)
		c.Set(fiber.HeaderAccessControlAllowHeaders, "Content-Type, Authorization, Idempotency-Key, Last-Event-ID")
		c.Set(fiber.HeaderAccessControlMaxAge, "600")
		if strings.EqualFold(c.Get("Access-Control-Request-Private-Network"), "true") {
			c.Set("Access-Control-Allow-Private-Network", "true")
		}
	}
	return c.SendStatus(fiber.StatusNoContent)
}

// match finds the route for method and path as this caller sees it: routes
// of groups that are off and token-only routes without the token do not
// exist. allow lists the methods the path has for this caller.
func (s *Server) match(method, path string, authed bool) (*route, []string) {
	if method == fiber.MethodHead {
		method = fiber.MethodGet
	}
	st := s.cur.Load()
	var found *route
	var allow []string
	for i := range s.table() {
		r := &s.table()[i]
		if !pathMatches(r.path, path) || !s.visible(r, st, authed) {
			continue
		}
		if !slices.Contains(allow, r.method) {
			allow = append(allow, r.method)
		}
		if r.method == method {
			found = r
		}
	}
	return found, allow
}

// route is the route of match without the allowed methods: the last route
// of the table for this method and path that the caller sees. It looks only
// at the candidates of the route index.
func (s *Server) route(method, path string, authed bool) *route {
	if method == fiber.MethodHead {
		method = fiber.MethodGet
	}
	st := s.cur.Load()
	t := s.table()
	found := -1
	static, params := s.routeIdx.candidates(path)
	for _, list := range [2][]int{static, params} {
		for _, i := range list {
			r := &t[i]
			if i > found && r.method == method && pathMatches(r.path, path) && s.visible(r, st, authed) {
				found = i
			}
		}
	}
	if found < 0 {
		return nil
	}
	return &t[found]
}

// visible says whether the route is served to this caller.
func (s *Server) visible(r *route, st *store.Settings, authed bool) bool {
	if r.token && !authed {
		return false
	}
	if r.method == fiber.MethodPost && r.path == "/webhooks/test" && s.cfg.WebhookTest == nil {
		return false
	}
	return r.group == "" || !slices.Contains(st.API.Disabled, r.group)
}

// pathMatches compares a spec path (/calls/{id}/answer) with a request path.
func pathMatches(pattern, path string) bool {
	if len(path) > 1 {
		path = strings.TrimSuffix(path, "/")
	}
	for {
		pi := strings.IndexByte(pattern, '{')
		if pi < 0 {
			return pattern == path
		}
		if !strings.HasPrefix(path, pattern[:pi]) {
			return false
		}
		path = path[pi:]
		pattern = pattern[pi+strings.IndexByte(pattern[pi:], '}')+1:]
		seg := strings.IndexByte(path, '/')
		if seg < 0 {
			seg = len(path)
		}
		if seg == 0 {
			return false
		}
		path = path[seg:]
	}
}

// fiberPath turns /calls/{id} into fiber's /calls/:id.
func fiberPath(p string) string {
	p = strings.ReplaceAll(p, "{", ":")
	return strings.ReplaceAll(p, "}", "")
}

// checkToken: no Authorization header reads and controls calls (rest-api.md
// Authentication 3). "Authorization: Bearer <token>" equal to the keyring's
// "api-token" (constant-time) opens the token-only routes. Any other value,
// also when no token is set, is a wrong token: 401, counted as refused.
func (s *Server) checkToken(c fiber.Ctx) (bool, error) {
	h := header(c, fiber.HeaderAuthorization)
	if h == "" {
		return false, nil
	}
	scheme, given, ok := strings.Cut(strings.TrimSpace(h), " ")
	given = strings.TrimSpace(given)
	want, err := s.tok.get(s.cfg.Secrets)
	if err != nil || !ok || !strings.EqualFold(scheme, "Bearer") || want == "" ||
		subtle.ConstantTimeCompare([]byte(given), []byte(want)) != 1 {
		return false, fail(fiber.StatusUnauthorized, msgWrongToken)
	}
	return true, nil
}

// tokenCache keeps the token read from the keyring for a few seconds: a
// keyring call is a D-Bus round trip. A settings change forgets it.
type tokenCache struct {
	mu    sync.Mutex
	val   string
	err   error
	until time.Time
}

const tokenTTL = 5 * time.Second

func (t *tokenCache) get(sec Secrets) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if time.Now().Before(t.until) {
		return t.val, t.err
	}
	t.val, t.err = sec.Get("api-token")
	if errors.Is(t.err, store.ErrNoSecret) {
		t.val, t.err = "", nil
	}
	t.until = time.Now().Add(tokenTTL)
	return t.val, t.err
}

func (t *tokenCache) forget() {
	t.mu.Lock()
	t.until = time.Time{}
	t.mu.Unlock()
}
