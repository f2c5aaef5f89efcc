package web

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/store"
	"github.com/softphone/softphone/views"
)

// TestRegistrationTestNoAnswer: "Test registration" against a PBX address
// where a UDP socket takes every REGISTER and answers none says "no answer
// from the PBX within 20 s" (and in German), not "The PBX answered: ...
// timeout" (issue 16 item 6). A real sipua phone sends the REGISTERs; both
// languages wait their 20 s side by side.
func TestRegistrationTestNoAnswer(t *testing.T) {
	for _, c := range []struct{ lang, want string }{
		{"en", "no answer from the PBX within 20 s"},
		{"de", "keine Antwort der Telefonanlage innerhalb von 20 s"},
	} {
		t.Run(c.lang, func(t *testing.T) {
			t.Parallel()
			silent, err := net.ListenPacket("udp4", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer silent.Close()
			heard := make(chan string, 1)
			go func() {
				buf := make([]byte, 4096)
				for {
					n, _, err := silent.ReadFrom(buf)
					if err != nil {
						return
					}
					select {
					case heard <- string(buf[:n]):
					default:
					}
				}
			}()
			ph := realPhone(t)
			r := newRig(t, func(cfg *Config) { cfg.Phone = ph })
			if _, err := r.st.Update(func(s *store.Settings) error { s.Appearance.Language = c.lang; return nil }); err != nil {
				t.Fatal(err)
			}
			r.login()
			port := silent.LocalAddr().(*net.UDPAddr).Port
			v := url.Values{"csrf": {r.csrf}, "do": {"test"}, "username": {"alice"}, "password": {"pw"},
				"domain": {"127.0.0.1"}, "port": {strconv.Itoa(port)}, "transport": {"udp"}}
			req, _ := http.NewRequest("POST", r.origin+"/settings/accounts", strings.NewReader(v.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Origin", r.origin)
			req.Header.Set("Sec-Fetch-Site", "same-origin")
			req.Header.Set("X-CSRF-Token", r.csrf)
			req.Header.Set("HX-Request", "true")
			req.AddCookie(r.cookie)
			res, err := (&http.Client{Timeout: 60 * time.Second}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			body := string(b)
			select {
			case m := <-heard:
				if !strings.HasPrefix(m, "REGISTER ") {
					t.Fatalf("the silent PBX got %q", m)
				}
			default:
				t.Fatalf("no REGISTER reached the silent PBX; answer:\n%s", regtestPart(body))
			}
			if !strings.Contains(body, c.want) {
				t.Fatalf("answer lacks %q:\n%s", c.want, regtestPart(body))
			}
			// In the test's own answer (the page's other sections name
			// sip.ring_timeout_s and sip.media_timeout_s).
			if part, _, _ := strings.Cut(regtestPart(body), "</section>"); strings.Contains(part, "timeout") {
				t.Fatalf("answer says timeout:\n%s", regtestPart(body))
			}
		})
	}
}

func regtestPart(body string) string {
	if i := strings.Index(body, `id="regtest"`); i >= 0 {
		return body[i:min(len(body), i+400)]
	}
	return body
}

// realPhone is a *sipua.Phone on loopback without accounts, serving until
// the test ends.
func realPhone(t *testing.T) *sipua.Phone {
	t.Helper()
	p, err := sipua.New(sipua.Config{Settings: store.Settings{SIP: store.SIPSettings{Listen: "127.0.0.1:0"}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	if !testpeer.WaitFor(5*time.Second, func() bool { return len(p.ListenStates()) > 0 }) {
		t.Fatal("the phone did not start")
	}
	return p
}

// TestRegTestWords: the PBX's answer keeps its status line and gets the
// cause in words.
func TestRegTestWords(t *testing.T) {
	for _, c := range []struct {
		l       views.L
		answer  string
		err     error
		timeout bool
		ok, bad string
	}{
		{"en", "200 OK", nil, false, "The PBX accepts this account and password (200 OK)", ""},
		{"en", "401 Unauthorized", errors.New("x"), false, "", "The PBX answered: 401 Unauthorized: wrong password"},
		{"de", "401 Unauthorized", errors.New("x"), false, "", "Die Telefonanlage antwortete: 401 Unauthorized: falsches Passwort"},
		{"en", "404 Not Found", errors.New("x"), false, "", "The PBX answered: 404 Not Found: no such user at the PBX"},
		{"en", "", errors.New("test registration: registration failed: timeout"), false, "", "no answer from the PBX within 20 s"},
		{"en", "", context.DeadlineExceeded, true, "", "no answer from the PBX within 20 s"},
		{"en", "", errors.New("test registration: registration failed: network error: dial udp: no route"), false, "", "The PBX cannot be reached: dial udp: no route"},
	} {
		ok, bad := regTestWords(c.l, c.answer, c.err, c.timeout)
		if ok != c.ok || bad != c.bad {
			t.Errorf("%s %q %v: got %q / %q", c.l, c.answer, c.err, ok, bad)
		}
	}
}
