package api

import (
	"strings"
	"testing"
)

// TestSpecRows runs the spec table against this package's own listener, once
// without a token configured and once with one.
func TestSpecRows(t *testing.T) {
	e := newEnv(t)
	e.seed()
	port := e.base[strings.LastIndex(e.base, ":")+1:]
	t.Run("no token set", func(t *testing.T) { runSpecRows(t, e.base, port, "", specRows()) })
	e.setToken()
	t.Run("token set", func(t *testing.T) { runSpecRows(t, e.base, port, token, specRows()) })
}
