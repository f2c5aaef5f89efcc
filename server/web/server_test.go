package web

import (
	"bufio"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/sipua"
)

func TestListenPrintsLinkOnConfiguredPortAndFallsBack(t *testing.T) {
	r := newRig(t, nil)
	want := r.st.Get().UI.Port
	if r.srv.Port() != want {
		t.Fatalf("bound %d, settings say %d", r.srv.Port(), want)
	}
	if !strings.HasPrefix(r.url, "http://127.0.0.1:"+strconv.Itoa(want)+"/?key=") {
		t.Fatalf("link %q", r.url)
	}
	// A second server with the same ui.port takes another free port.
	r2 := newRig(t, func(c *Config) { c.Settings = r.st })
	if r2.srv.Port() == want || r2.srv.Port() == 0 {
		t.Fatalf("second server on %d", r2.srv.Port())
	}
}

func TestKeyOnceCookieFlagsAndNoDataWithoutSession(t *testing.T) {
	r := newRig(t, nil)
	// Without a session: the short page, 401, and nothing of the phone's data.
	for _, p := range []string{"/", "/events", "/contacts", "/history", "/settings", "/dial?uri=tel:123"} {
		res, body := r.do("GET", p, nil, nil)
		if res.StatusCode != http.StatusUnauthorized || strings.Contains(body, "Alice line") || !strings.Contains(body, "softphone") {
			t.Fatalf("%s without session: %d %q", p, res.StatusCode, body)
		}
	}
	// Nor does a change go through without a session, even with a good Origin.
	res, _ := r.do("POST", "/calls", strings.NewReader("number=1"), map[string]string{
		"Content-Type": "application/x-www-form-urlencoded", "Origin": r.origin, "Sec-Fetch-Site": "same-origin"})
	if res.StatusCode != http.StatusUnauthorized || len(r.phone.commands()) != 0 {
		t.Fatalf("POST without session: %d", res.StatusCode)
	}
	// Static files and the service worker hold no data and need no session.
	for _, p := range []string{"/static/css/app.css", "/static/dist/phone.js", "/static/vendor/htmx.min.js", "/static/vendor/sse.js", "/static/vendor/idiomorph-ext.min.js", "/sw.js"} {
		if res, _ := r.do("GET", p, nil, nil); res.StatusCode != 200 {
			t.Errorf("%s: %d", p, res.StatusCode)
		}
	}
	u, _ := url.Parse(r.url)
	res, _ = r.do("GET", u.RequestURI(), nil, nil)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/" {
		t.Fatalf("key: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	sc := res.Header.Get("Set-Cookie")
	for _, flag := range []string{"HttpOnly", "SameSite=Strict", "Path=/"} {
		if !strings.Contains(strings.ToLower(sc), strings.ToLower(flag)) {
			t.Errorf("cookie %q lacks %s", sc, flag)
		}
	}
	// The key works once only.
	res, body := r.do("GET", u.RequestURI(), nil, nil)
	if res.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "already used") {
		t.Fatalf("second use: %d", res.StatusCode)
	}
	r.login2(sc)
	res, body = r.do("GET", "/", nil, nil)
	if res.StatusCode != 200 || !strings.Contains(body, "Alice line") {
		t.Fatalf("with session: %d", res.StatusCode)
	}
	// A made-up session is no session.
	r.cookie = &http.Cookie{Name: r.srv.sessionCookie(), Value: strings.Repeat("ab", 32)}
	if res, _ := r.do("GET", "/", nil, nil); res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("forged session: %d", res.StatusCode)
	}
}

// login2 takes the session from a Set-Cookie header.
func (r *rig) login2(setCookie string) {
	h := http.Header{"Set-Cookie": {setCookie}}
	r.cookie = (&http.Response{Header: h}).Cookies()[0]
}

func TestHostHeaderRebindingRefused(t *testing.T) {
	r := newRig(t, nil)
	r.login()
	port := strconv.Itoa(r.srv.Port())
	for _, host := range []string{"evil.example:" + port, "evil.example", "127.0.0.1:1", "127.0.0.1", "localhost.evil.example:" + port, "10.0.0.1:" + port} {
		res, body := r.do("GET", "/", nil, map[string]string{"Host": host})
		if res.StatusCode != http.StatusForbidden || strings.Contains(body, "Alice line") {
			t.Errorf("Host %q: %d", host, res.StatusCode)
		}
	}
	for _, host := range []string{"localhost:" + port, "127.0.0.1:" + port} {
		if res, _ := r.do("GET", "/", nil, map[string]string{"Host": host}); res.StatusCode != 200 {
			t.Errorf("Host %q: %d", host, res.StatusCode)
		}
	}
	// Also the static files and the key link are behind the check.
	if res, _ := r.do("GET", "/static/css/app.css", nil, map[string]string{"Host": "evil.example:" + port}); res.StatusCode != 403 {
		t.Errorf("static with evil host: %d", res.StatusCode)
	}
}

func TestCSRFRefused(t *testing.T) {
	r := newRig(t, nil)
	r.login()
	body := func() *strings.Reader { return strings.NewReader("number=123") }
	form := "application/x-www-form-urlencoded"
	cases := []struct {
		name string
		hdr  map[string]string
	}{
		{"no token", map[string]string{"Content-Type": form, "Origin": r.origin}},
		{"wrong token", map[string]string{"Content-Type": form, "Origin": r.origin, "X-CSRF-Token": strings.Repeat("0", 64)}},
		{"cross origin", map[string]string{"Content-Type": form, "Origin": "http://evil.example", "X-CSRF-Token": r.csrf}},
		{"cross site fetch", map[string]string{"Content-Type": form, "Sec-Fetch-Site": "cross-site", "X-CSRF-Token": r.csrf}},
		{"same site other port", map[string]string{"Content-Type": form, "Sec-Fetch-Site": "same-site", "X-CSRF-Token": r.csrf}},
	}
	for _, c := range cases {
		res, _ := r.do("POST", "/calls", body(), c.hdr)
		if res.StatusCode != http.StatusForbidden {
			t.Errorf("%s: %d", c.name, res.StatusCode)
		}
	}
	if n := len(r.phone.commands()); n != 0 {
		t.Fatalf("refused requests reached the phone: %v", r.phone.commands())
	}
	// The token in a form field works too (forms without JavaScript).
	res, _ := r.do("POST", "/calls", strings.NewReader("number=tel:%2B49-30-123&csrf="+r.csrf),
		map[string]string{"Content-Type": form, "Origin": r.origin})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("good form: %d", res.StatusCode)
	}
	if got := r.phone.commands(); len(got) != 1 || got[0] != "dial +4930123 " {
		t.Fatalf("phone got %q", got)
	}
}

func TestCallActionsReachThePhone(t *testing.T) {
	r := newRig(t, nil)
	r.login()
	for _, tc := range []struct{ path, form, want string }{
		{"/calls", "number=sip:bob@pbx.test&account=a1", "dial sip:bob@pbx.test a1"},
		{"/calls/c1/answer", "", "answer c1"},
		{"/calls/c1/hold", "", "hold c1"},
		{"/calls/c1/resume", "", "resume c1"},
		{"/calls/c1/mute", "", "mute c1 on"},
		{"/calls/c1/unmute", "", "mute c1 off"},
		{"/calls/c1/dtmf", "digits=12%23", "dtmf c1 12#"},
		{"/calls/c1/transfer", "target=(030)%20555", "transfer c1 030555"},
		{"/calls/c1/attended", "consult=c2", "attended c1 c2"},
		{"/calls/c1/record", "", "record c1"},
		{"/calls/c1/hangup", "", "hangup c1"},
		{"/accounts/a1/select", "", "select a1"},
		{"/calls/conference", "", "conference "},
	} {
		v, _ := url.ParseQuery(tc.form)
		res, _ := r.form(tc.path, v)
		if res.StatusCode != http.StatusNoContent {
			t.Errorf("%s: %d", tc.path, res.StatusCode)
			continue
		}
		got := r.phone.commands()
		if got[len(got)-1] != tc.want {
			t.Errorf("%s: phone got %q, want %q", tc.path, got[len(got)-1], tc.want)
		}
	}
	if got := r.st.Get().SIP.SelectedAccount; got != "a1" {
		t.Errorf("selected account not kept: %q", got)
	}
	// A phone error comes back in words for the alert area, never raw (issue 16).
	res, body := r.form("/calls/gone/hangup", nil)
	if res.StatusCode != 400 || res.Header.Get("HX-Retarget") != "#flash" || !strings.Contains(body, "That call has ended.") {
		t.Fatalf("error: %d %q %q", res.StatusCode, res.Header.Get("HX-Retarget"), body)
	}
}

func TestEventsStreamCallsAndShutdown(t *testing.T) {
	r := newRig(t, nil)
	r.login()
	r.phone.mu.Lock()
	r.phone.calls = []sipua.Call{{ID: "c9", Number: "555", State: sipua.StateRingingIn, Direction: sipua.DirIn, StateAt: time.Now()}}
	r.phone.mu.Unlock()
	req, _ := http.NewRequest("GET", r.origin+"/events", nil)
	req.AddCookie(r.cookie)
	res, err := (&http.Client{}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("content type %q", ct)
	}
	rd := bufio.NewReader(res.Body)
	waitEvent := func(substr string) {
		t.Helper()
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				t.Fatalf("stream ended before %q: %v", substr, err)
			}
			if strings.Contains(line, substr) {
				return
			}
		}
	}
	waitEvent(`data-call-id="c9"`)
	// A DTMF digit received on the call shows up on the next update.
	r.bus.Publish(sipua.Event{Kind: sipua.EventDTMF, Call: sipua.Call{ID: "c9"}, Digit: "7"})
	waitEvent("<output>7</output>")
	// A call that ends tells history pages to fetch their list again.
	r.bus.Publish(sipua.Event{Kind: sipua.EventCallEnded, Call: sipua.Call{ID: "c9"}})
	waitEvent("event: history")
	// Shutdown ends the stream and frees the port.
	r.stop()
	r.stop = func() {}
	for {
		if _, err := rd.ReadString('\n'); err != nil {
			break
		}
	}
	if c, err := net.Dial("tcp4", "127.0.0.1:"+strconv.Itoa(r.srv.Port())); err == nil {
		c.Close()
		t.Fatalf("port still open after shutdown")
	}
}
