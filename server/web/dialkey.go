package web

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"
)

// dialKeyFile holds a random key, written at each start into the home folder
// (mode 0600). Whoever can read it is the local user who runs the phone, so
// `softphone dial URI` (what the desktop runs for tel:, sip: and callto:
// links) may dial at once with it. A web page cannot read it, and GET /dial,
// which any page can open, only fills in the number (issue 12 item 8).
const dialKeyFile = "dial-key"

// dialKeyHeader carries the key; a browser never sends it on its own.
const dialKeyHeader = "X-Softphone-Dial-Key"

// ErrDialRefused: the running phone did not take the dial.
var ErrDialRefused = errors.New("the phone did not dial")

// writeDialKey makes a fresh key and writes it atomically with mode 0600.
func (s *Server) writeDialKey() {
	if s.cfg.Home == "" {
		return
	}
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	key := hex.EncodeToString(b)
	f, err := os.CreateTemp(s.cfg.Home, dialKeyFile+".*") // created 0600
	if err == nil {
		_, err = f.WriteString(key + "\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(f.Name(), filepath.Join(s.cfg.Home, dialKeyFile))
		}
		if err != nil {
			_ = os.Remove(f.Name())
		}
	}
	if err != nil {
		s.log.Warn("web: no dial key for `softphone dial`", "err", err)
		return
	}
	s.mu.Lock()
	s.dialKey = key
	s.mu.Unlock()
}

// dialByKey is POST /dial with the home's key: it dials uri at once. Without
// the header it is not this route (the session routes follow); a wrong key,
// or a request a browser made (it carries Origin), is refused.
func (s *Server) dialByKey(c fiber.Ctx) error {
	given := c.Get(dialKeyHeader)
	if given == "" {
		return c.Next()
	}
	s.mu.Lock()
	want := s.dialKey
	s.mu.Unlock()
	if want == "" || c.Get("Origin") != "" || subtle.ConstantTimeCompare([]byte(given), []byte(want)) != 1 {
		return c.Status(fiber.StatusForbidden).SendString("forbidden: wrong dial key")
	}
	if s.cfg.Phone == nil {
		return c.Status(fiber.StatusServiceUnavailable).SendString(s.lang().T("err.nophone"))
	}
	number := normalizeNumber(c.FormValue("uri"))
	if number == "" {
		return c.Status(fiber.StatusBadRequest).SendString(s.lang().T("err.nonumber"))
	}
	call, err := s.cfg.Phone.Dial(context.WithoutCancel(c.Context()), number, "")
	if err != nil {
		return c.Status(fiber.StatusBadRequest).SendString(err.Error())
	}
	s.mu.Lock()
	s.redial = number
	s.mu.Unlock()
	s.hub.poke()
	s.log.Info("web: dialled for `softphone dial`", "call", call.ID)
	return c.Status(fiber.StatusCreated).SendString(call.ID)
}

// DialNow asks the phone running with this home folder to dial uri at once,
// proving it is the local user by the home's key file. It returns the new
// call's id.
func DialNow(home, uri string) (string, error) {
	origin, err := os.ReadFile(filepath.Join(home, urlFile))
	if err != nil {
		return "", fmt.Errorf("is the phone running? %w", err)
	}
	key, err := os.ReadFile(filepath.Join(home, dialKeyFile))
	if err != nil {
		return "", fmt.Errorf("is the phone running? %w", err)
	}
	req, err := http.NewRequest(http.MethodPost, strings.TrimSpace(string(origin))+"/dial",
		strings.NewReader(url.Values{"uri": {uri}}.Encode()))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set(dialKeyHeader, strings.TrimSpace(string(key)))
	client := &http.Client{Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("is the phone running? %w", err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
	if res.StatusCode != http.StatusCreated {
		return "", fmt.Errorf("%w: %d %s", ErrDialRefused, res.StatusCode, strings.TrimSpace(string(body)))
	}
	return strings.TrimSpace(string(body)), nil
}
