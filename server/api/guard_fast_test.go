package api

import (
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v3"
	"github.com/softphone/softphone/store"
	"github.com/valyala/fasthttp"
)

// TestHostFastPathAsGeneralCheck: the byte comparison hostAllowed makes
// first (issue 20) takes exactly the Host headers the general check takes:
// for each header below, hostAllowed gives what hostMatches gives, also
// for look-alikes a Unicode case fold would take (a long s, the Kelvin
// sign) and the odd forms the general check accepts ([localhost]:port).
func TestHostFastPathAsGeneralCheck(t *testing.T) {
	const port = 8080
	l := &listener{port: port, hosts: loopbackHosts(port)}
	s := &Server{}
	app := fiber.New()
	hosts := []string{
		"127.0.0.1:8080", "localhost:8080", "LOCALHOST:8080", "LocalHost:8080", "[::1]:8080", "[::1]:8080",
		"localhoſt:8080", "locaK\u212Alhost:8080", "\u212Aocalhost:8080", "127.0.0.1:08080", "127.0.0.1:+8080",
		"127.0.0.1:8081", "127.0.0.1:80800", "127.0.0.1:808", "127.0.0.1", "localhost", "[localhost]:8080",
		"[127.0.0.1]:8080", "::1:8080", "[::1]", "127.0.0.1:8080 ", " 127.0.0.1:8080", "127.0.0.1.:8080",
		"localhost.:8080", "evil.example:8080", "127.0.0.1.nip.io:8080", "192.168.1.10:8080", "127.0.0.2:8080",
		"[0:0:0:0:0:0:0:1]:8080", "", ":8080", "127.0.0.1:", "[::1]:8080x", "127.0.0.1:8080:8080",
	}
	for _, h := range hosts {
		var fctx fasthttp.RequestCtx
		fctx.Request.Header.SetHost(h)
		c := app.AcquireCtx(&fctx)
		got := s.hostAllowed(c, l)
		app.ReleaseCtx(c)
		if want := hostMatches(h, port); got != want {
			t.Errorf("Host %q: fast path %v, general check %v", h, got, want)
		}
	}
	var fctx fasthttp.RequestCtx
	fctx.Request.Header.SetHost("127.0.0.1:8080")
	c := app.AcquireCtx(&fctx)
	defer app.ReleaseCtx(c)
	if s.hostAllowed(c, nil) {
		t.Error("a request without its listener passed the Host check")
	}
}

// TestRouteIndexAsTableWalk: the route the index finds is the one a walk of
// the whole table finds (match), for every method, path of the table with
// sample parameters, and variants (a trailing slash, a segment more or
// less, an empty parameter), with and without the token, and with a group
// switched off.
func TestRouteIndexAsTableWalk(t *testing.T) {
	e := newEnv(t)
	var paths []string
	for _, r := range e.srv.table() {
		p := strings.NewReplacer("{id}", "0b8f2a52-2e36-4a8e-9a57-2f1f6e3c1d11", "{code}", "red-flag").Replace(r.path)
		paths = append(paths, p, p+"/", p+"//", p+"/x", strings.TrimSuffix(p[:strings.LastIndexByte(p, '/')+1], "/"),
			strings.Replace(r.path, "{id}", "", 1), strings.ToUpper(p))
	}
	paths = append(paths, "", "/", "//", "/nothing", "/calls/a/b/c/d", "/ui/recordings/x/audio/y")
	slices.Sort(paths)
	paths = slices.Compact(paths)
	methods := []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"}
	check := func(when string) {
		t.Helper()
		for _, p := range paths {
			for _, m := range methods {
				for _, authed := range []bool{false, true} {
					want, _ := e.srv.match(m, p, authed)
					if got := e.srv.route(m, p, authed); got != want {
						t.Errorf("%s: %s %q authed %v: index %s, table walk %s", when, m, p, authed, name(got), name(want))
					}
				}
			}
		}
	}
	check("all groups on")
	off := []string{store.GroupHistory, store.GroupCalls}
	e.update(func(s *store.Settings) { s.API.Disabled = off })
	e.waitSettings(func(s *store.Settings) bool { return slices.Equal(s.API.Disabled, off) })
	check("history and calls off")
}

func name(r *route) string {
	if r == nil {
		return "none"
	}
	return fmt.Sprintf("%s %s", r.method, r.path)
}

// TestForeignHostOriginTokenAtFullSpeed: the guard with its shortcuts
// (issue 20) still refuses a foreign Host and a wrong token on GET /calls
// and GET /history, the paths served without fiber's router, and serves
// them to a plain local client (origins_test.go asks the same of origins
// on these paths).
func TestForeignHostTokenAtFullSpeed(t *testing.T) {
	e := newEnv(t)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(e.base, "http://"))
	for _, path := range []string{"/calls", "/history", "/history?limit=5"} {
		if r := e.get(path); r.status != 200 {
			t.Errorf("GET %s: %d %s", path, r.status, r.body)
		}
		if r := e.get(path, "Host: evil.example:"+port); r.status != 403 || r.errMsg(t) != msgWrongHost {
			t.Errorf("GET %s, foreign Host: %d %s", path, r.status, r.body)
		}
		if r := e.get(path, "Authorization: Bearer wrong"); r.status != 401 || r.errMsg(t) != msgWrongToken {
			t.Errorf("GET %s, wrong token: %d %s", path, r.status, r.body)
		}
	}
}
