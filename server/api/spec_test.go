package api

import (
	"strings"
	"testing"

	"github.com/softphone/softphone/store"
)

// TestSpecRows runs the spec table against this package's own listener, once
// without a token configured and once with one. The CRM origin of the
// preflight row is approved (a running phone needs the same yes).
func TestSpecRows(t *testing.T) {
	e := newEnv(t, func(s *store.Settings) { s.API.AllowedOrigins = []string{"http://crm.example:3000"} })
	e.seed()
	port := e.base[strings.LastIndex(e.base, ":")+1:]
	t.Run("no token set", func(t *testing.T) { runSpecRows(t, e.base, port, "", specRows()) })
	e.setToken()
	t.Run("token set", func(t *testing.T) { runSpecRows(t, e.base, port, token, specRows()) })
}
