package web

import (
	"net/http"
	"net/url"
	"testing"
)

// TestUnopenedLinksAreBounded: links asked for again and again (the API's
// POST /calls asks for one each time no tab holds the audio, at once again
// where no browser opens) keep the newest maxKeys; each was kept for a day,
// the phone's memory growing with every request of any local program. The
// newest link still opens the page; one pushed out shows the gate.
func TestUnopenedLinksAreBounded(t *testing.T) {
	r := newRig(t, nil)
	first := r.url
	var last string
	for range 20000 {
		last = r.srv.LoginURL()
	}
	r.srv.sessions.mu.Lock()
	n := len(r.srv.sessions.keys)
	r.srv.sessions.mu.Unlock()
	if n > maxKeys {
		t.Fatalf("%d links kept", n)
	}
	for _, c := range []struct {
		link string
		want int
	}{{first, http.StatusUnauthorized}, {last, http.StatusSeeOther}} {
		u, _ := url.Parse(c.link)
		if res, _ := r.do("GET", u.RequestURI(), nil, nil); res.StatusCode != c.want {
			t.Errorf("%s: %d, want %d", c.link, res.StatusCode, c.want)
		}
	}
}
