package web

import (
	"bufio"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/softphone/softphone/store"
)

// testAsks stands in for the API's question box (server/api tests it).
type testAsks struct {
	mu      sync.Mutex
	asks    []string
	answers []string
	watch   []func()
}

func (a *testAsks) Asks() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.asks)
}

func (a *testAsks) Answer(origin string, allow bool) error {
	a.mu.Lock()
	i := slices.Index(a.asks, origin)
	if i < 0 {
		a.mu.Unlock()
		return errors.New("no question")
	}
	a.asks = slices.Delete(a.asks, i, i+1)
	a.answers = append(a.answers, origin+map[bool]string{true: " allow", false: " deny"}[allow])
	a.mu.Unlock()
	a.changed()
	return nil
}

func (a *testAsks) OnChange(fn func()) {
	a.mu.Lock()
	a.watch = append(a.watch, fn)
	a.mu.Unlock()
}

func (a *testAsks) changed() {
	a.mu.Lock()
	fns := slices.Clone(a.watch)
	a.mu.Unlock()
	for _, f := range fns {
		go f()
	}
}

func (a *testAsks) add(o string) {
	a.mu.Lock()
	a.asks = append(a.asks, o)
	a.mu.Unlock()
	a.changed()
}

// The question shows on the page (English and German), comes live on the
// event stream, and only the phone's own page can answer it.
func TestOriginQuestionOnThePage(t *testing.T) {
	asks := &testAsks{}
	r := newRig(t, func(c *Config) { c.Origins = asks })
	r.login()
	const crm = "https://crm.example.com"

	req, _ := http.NewRequest("GET", r.origin+"/events", nil)
	req.AddCookie(r.cookie)
	res, err := (&http.Client{}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	rd := bufio.NewReader(res.Body)
	waitLine := func(substr string) string {
		t.Helper()
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				t.Fatalf("stream ended before %q: %v", substr, err)
			}
			if strings.Contains(line, substr) {
				return line
			}
		}
	}
	waitLine("event: origins")
	asks.add(crm)
	if line := waitLine(crm + " wants to use this phone: place and control calls, read calls, history and contacts."); !strings.Contains(line, `value="allow"`) {
		t.Fatalf("no Allow in %s", line)
	}

	_, body := r.do("GET", "/settings", nil, nil)
	if !strings.Contains(body, `role="alertdialog"`) || !strings.Contains(body, ">Allow</button>") || !strings.Contains(body, ">Deny</button>") {
		t.Fatalf("the question is not on a full page:\n%s", body)
	}
	if _, err := r.st.Update(func(s *store.Settings) error { s.Appearance.Language = "de"; return nil }); err != nil {
		t.Fatal(err)
	}
	_, body = r.do("GET", "/", nil, nil)
	if !strings.Contains(body, crm+" möchte dieses Telefon verwenden: Anrufe tätigen und steuern, Anrufe, Verlauf und Kontakte lesen.") ||
		!strings.Contains(body, ">Erlauben</button>") || !strings.Contains(body, ">Ablehnen</button>") {
		t.Fatal("no German question")
	}

	// Another site cannot answer for the person (CSRF), nor can a page
	// without the token.
	res2, _ := r.do("POST", "/origins/answer", strings.NewReader(url.Values{"origin": {crm}, "answer": {"allow"}}.Encode()),
		map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Origin": crm, "Sec-Fetch-Site": "cross-site"})
	if res2.StatusCode != http.StatusForbidden || len(asks.answers) != 0 {
		t.Fatalf("cross-site answer: %d %v", res2.StatusCode, asks.answers)
	}
	res2, _ = r.form("/origins/answer", url.Values{"origin": {crm}, "answer": {"allow"}})
	if res2.StatusCode != http.StatusNoContent || !slices.Equal(asks.answers, []string{crm + " allow"}) {
		t.Fatalf("allow: %d %v", res2.StatusCode, asks.answers)
	}
	// The question leaves the open pages.
	waitLine("event: origins")
	if line := waitLine("data:"); strings.Contains(line, crm) {
		t.Fatalf("question still shown: %s", line)
	}
	// An answer to a question nobody asks any more says so.
	res2, body = r.form("/origins/answer", url.Values{"origin": {crm}, "answer": {"deny"}})
	if res2.StatusCode != http.StatusConflict || !strings.Contains(body, "schon beantwortet") {
		t.Fatalf("stale answer: %d %s", res2.StatusCode, body)
	}
}

// The Integration tab lists approved origins with Remove; saving the API
// section leaves them alone.
func TestAllowedOriginsListAndRemove(t *testing.T) {
	r := newRig(t, nil)
	if _, err := r.st.Update(func(s *store.Settings) error {
		s.API.AllowedOrigins = []string{"https://crm.example.com", "http://localhost:3000"}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	r.login()
	_, body := r.do("GET", "/settings", nil, nil)
	if !strings.Contains(body, `<li data-origin="https://crm.example.com">`) || strings.Count(body, ">Remove</button>") != 2 {
		t.Fatal("approved origins not listed with Remove")
	}
	res, _ := r.form("/settings/api", url.Values{"api.port": {itoa(freePort(t))}, "api.enabled": {"on"}, "api.groups": {"calls"}})
	if res.StatusCode != 200 || len(r.st.Get().API.AllowedOrigins) != 2 {
		t.Fatalf("saving the API section: %d, origins %v", res.StatusCode, r.st.Get().API.AllowedOrigins)
	}
	res, body = r.form("/settings/origins/remove", url.Values{"origin": {"https://crm.example.com"}})
	if res.StatusCode != 200 || !slices.Equal(r.st.Get().API.AllowedOrigins, []string{"http://localhost:3000"}) ||
		strings.Contains(body, `<li data-origin="https://crm.example.com">`) {
		t.Fatalf("remove: %d, origins %v", res.StatusCode, r.st.Get().API.AllowedOrigins)
	}
}

// GET /dial only fills in the number and puts the focus on Call, whoever
// opens it: the address bar (Sec-Fetch-Site none), our own page, another site.
func TestDialLinkFillsInAndNeverDials(t *testing.T) {
	r := newRig(t, nil)
	r.login()
	for _, site := range []string{"none", "same-origin", "cross-site", ""} {
		res, body := r.do("GET", "/dial?uri=tel:%2B49-30-999", nil, map[string]string{"Sec-Fetch-Site": site})
		if res.StatusCode != 200 || !strings.Contains(body, `value="+4930999"`) {
			t.Fatalf("site %q: %d, number not filled in", site, res.StatusCode)
		}
		if !strings.Contains(body, `data-action="dial" autofocus`) || !strings.Contains(body, `id="number-filled"`) {
			t.Fatalf("site %q: the Call button has no focus or the page does not say why", site)
		}
	}
	if cmds := r.phone.commands(); len(cmds) != 0 {
		t.Fatalf("a link dialled: %v", cmds)
	}
	// The click on Call (a form post of our page) dials.
	r.form("/calls", url.Values{"number": {"+4930999"}})
	if cmds := r.phone.commands(); !slices.Equal(cmds, []string{"dial +4930999 "}) {
		t.Fatalf("after the click: %v", cmds)
	}
}

// A half-open connection to the pages' port is released (short limits here;
// server/httplimit tests the product defaults).
func TestPagesReleaseHalfOpenConnections(t *testing.T) {
	r := newRig(t, func(c *Config) { c.Limits.Read = 200 * time.Millisecond })
	c := dialRaw(t, r.srv.Port())
	if _, err := c.Write([]byte("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 512)
	for {
		if _, err := c.Read(buf); err != nil {
			if ne, ok := err.(interface{ Timeout() bool }); ok && ne.Timeout() {
				t.Fatal("half-open connection still open after 5 s")
			}
			break
		}
	}
}
