package web

import (
	"bufio"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestSessionsAreBounded: every opened link made a session that was never
// removed. A local program's loop of POST /calls opens a tab each time no
// tab holds the audio (on a desktop, every few seconds), so the phone's
// memory grew with every page opened. Sessions idle too long go, and of the
// idle ones only the most recently used maxIdleSessions stay; a page whose
// event stream is open is in use and stays however many come after it, and
// so does the idle page used last.
func TestSessionsAreBounded(t *testing.T) {
	r := newRig(t, nil)
	r.login()
	live := r.cookie

	// The page in use: its event stream is open.
	req, err := r.request("GET", "/events", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if line, err := bufio.NewReader(res.Body).ReadString('\n'); err != nil || !strings.HasPrefix(line, ": live") {
		t.Fatalf("events: %q %v", line, err)
	}

	open := func() *http.Cookie {
		u, _ := url.Parse(r.srv.LoginURL())
		r.cookie = nil
		res, _ := r.do("GET", u.RequestURI(), nil, nil)
		if res.StatusCode != http.StatusSeeOther || len(res.Cookies()) == 0 {
			t.Fatalf("login: %d", res.StatusCode)
		}
		return res.Cookies()[0]
	}
	first := open()
	var idle *http.Cookie
	for i := range 1000 {
		c := open()
		if i == 500 {
			idle = c
		}
		if i > 500 && i%50 == 0 { // the idle page is used again now and then
			r.cookie = idle
			if res, _ := r.do("GET", "/", nil, nil); res.StatusCode != http.StatusOK {
				t.Fatalf("idle page used again: %d", res.StatusCode)
			}
		}
	}
	r.srv.sessions.mu.Lock()
	n := len(r.srv.sessions.byID)
	r.srv.sessions.mu.Unlock()
	if n > maxIdleSessions+1 {
		t.Errorf("%d sessions kept", n)
	}
	for _, c := range []struct {
		name   string
		cookie *http.Cookie
		want   int
	}{{"page in use", live, http.StatusOK}, {"idle page used lately", idle, http.StatusOK}, {"first of the loop", first, http.StatusUnauthorized}} {
		r.cookie = c.cookie
		if res, _ := r.do("GET", "/", nil, nil); res.StatusCode != c.want {
			t.Errorf("%s: %d, want %d", c.name, res.StatusCode, c.want)
		}
	}

	// A session idle past sessionIdleTTL is gone; the page in use is not,
	// however long ago it last asked for anything.
	r.srv.sessions.mu.Lock()
	for _, se := range r.srv.sessions.byID {
		se.used = se.used.Add(-sessionIdleTTL - time.Minute)
	}
	r.srv.sessions.mu.Unlock()
	for _, c := range []struct {
		name   string
		cookie *http.Cookie
		want   int
	}{{"page in use", live, http.StatusOK}, {"idle page", idle, http.StatusUnauthorized}} {
		r.cookie = c.cookie
		if res, _ := r.do("GET", "/", nil, nil); res.StatusCode != c.want {
			t.Errorf("after %v: %s: %d, want %d", sessionIdleTTL, c.name, res.StatusCode, c.want)
		}
	}
}
