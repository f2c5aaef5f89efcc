package web

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/softphone/softphone/store"
)

// tryDo is rig.do that gives the transport's error back: a server that
// refuses a huge request may close the connection before it is all sent.
func (r *rig) tryDo(method, path string, body []byte, hdr map[string]string) (int, string, error) {
	req, err := r.request(method, path, bytes.NewReader(body), hdr)
	if err != nil {
		return 0, "", err
	}
	res, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer res.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(res.Body)
	return res.StatusCode, b.String(), nil
}

// TestSuggestRefusesHostileInput: GET /dial/suggest answers contacts and
// history only to this phone's own page (token, same origin, loopback
// Host); a query no number could be is refused, not looked up, and the
// refusal leaves the page as it is (HX-Reswap: none).
func TestSuggestRefusesHostileInput(t *testing.T) {
	r, db := storeRig(t)
	if _, err := db.CreateContact(context.Background(), store.Contact{Name: "Ada Lovelace", Number: "+49 30 1234567"}); err != nil {
		t.Fatal(err)
	}
	own := func(extra map[string]string) map[string]string {
		h := map[string]string{"X-CSRF-Token": r.csrf, "Sec-Fetch-Site": "same-origin", "HX-Request": "true"}
		for k, v := range extra {
			h[k] = v
		}
		return h
	}
	res, body := r.do("GET", "/dial/suggest?number=ada", nil, own(nil))
	if res.StatusCode != 200 || !strings.Contains(body, "Ada Lovelace") {
		t.Fatalf("own page: %d %s", res.StatusCode, body)
	}
	port := strconv.Itoa(r.srv.port)
	for _, c := range []struct {
		name   string
		query  string
		hdr    map[string]string
		status int
		words  string
	}{
		{"no token", "ada", map[string]string{"Sec-Fetch-Site": "same-origin"}, 403, "did not come from this phone's own page"},
		{"wrong token", "ada", own(map[string]string{"X-CSRF-Token": strings.Repeat("0", len(r.csrf))}), 403, "did not come from this phone's own page"},
		{"foreign origin", "ada", own(map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": ""}), 403, "did not come from this phone's own page"},
		{"cross site", "ada", own(map[string]string{"Sec-Fetch-Site": "cross-site"}), 403, "did not come from this phone's own page"},
		{"foreign host", "ada", own(map[string]string{"Host": "evil.example:" + port}), 403, "not a loopback host name"},
		{"rebound host", "ada", own(map[string]string{"Host": "127.0.0.1.nip.io:" + port}), 403, "not a loopback host name"},
		{"long query", strings.Repeat("a", maxSuggestBytes+1), own(nil), 400, "the text is too long"},
		{"bad UTF-8", "ad%FF%FEa", own(nil), 400, "the text is too long or holds characters"},
		{"CR LF", "ada%0D%0AX-Evil:%201", own(nil), 400, "holds characters"},
		{"NUL", "ada%00", own(nil), 400, "holds characters"},
		{"escape", "%1B%5B2J", own(nil), 400, "holds characters"},
		{"line separator", "ada%E2%80%A8", own(nil), 400, "holds characters"},
	} {
		q := c.query
		if !strings.Contains(q, "%") {
			q = url.QueryEscape(q)
		}
		res, body := r.do("GET", "/dial/suggest?number="+q, nil, c.hdr)
		if res.StatusCode != c.status || !strings.Contains(body, c.words) || strings.Contains(body, "Ada") {
			t.Errorf("%s: %d %q", c.name, res.StatusCode, body)
		}
		if c.status != 403 || c.words != "not a loopback host name" {
			if res.Header.Get("HX-Reswap") != "none" {
				t.Errorf("%s: the refusal would change the page: HX-Reswap %q", c.name, res.Header.Get("HX-Reswap"))
			}
		}
	}
	// A query larger than the request-line limit (8 KiB) never reaches the
	// handler: 431, or the connection closed.
	status, body, err := r.tryDo("GET", "/dial/suggest?number="+strings.Repeat("a", 64<<10), nil, own(nil))
	t.Logf("huge query: %d %v", status, err)
	if err == nil && status != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("huge query: %d %q", status, body)
	}
	// German words for the refusal.
	if _, err := r.st.Update(func(s *store.Settings) error { s.Appearance.Language = "de"; return nil }); err != nil {
		t.Fatal(err)
	}
	if res, body := r.do("GET", "/dial/suggest?number=%00", nil, own(nil)); res.StatusCode != 400 || !strings.Contains(body, "Nichts nachgeschlagen") {
		t.Errorf("German: %d %q", res.StatusCode, body)
	}
}

// welcomeUntouched checks that nothing of a refused POST /welcome was kept:
// settings.json and secrets.json as they were, no account, no registration
// test sent to the PBX.
func welcomeUntouched(t *testing.T, r *rig, dir, name string, settings, secrets []byte) {
	t.Helper()
	if got, _ := os.ReadFile(filepath.Join(dir, "settings.json")); !bytes.Equal(got, settings) {
		t.Errorf("%s: settings.json changed:\n%s", name, got)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, store.SecretsFile)); !bytes.Equal(got, secrets) {
		t.Errorf("%s: secrets.json changed", name)
	}
	if accs := r.st.Get().Accounts; len(accs) != 0 {
		t.Errorf("%s: account kept: %+v", name, accs)
	}
	for _, c := range r.phone.commands() {
		if strings.HasPrefix(c, "testreg") {
			t.Errorf("%s: the PBX was asked: %v", name, r.phone.commands())
		}
	}
}

// TestWelcomeRefusesHostileInput: POST /welcome (the first-run card) with
// a huge body, broken or control characters in its fields, no CSRF token, a
// foreign Origin or Host: each is refused in words (next to the field where
// there is one) and changes nothing; the PBX is not asked.
func TestWelcomeRefusesHostileInput(t *testing.T) {
	dir := t.TempDir()
	sec := store.OpenSecrets(dir)
	r := newRig(t, func(c *Config) { c.Secrets = sec; c.Home = dir })
	noAccounts(t, r, "en")
	if err := sec.Set("other", "kept"); err != nil {
		t.Fatal(err)
	}
	r.login()
	settings, _ := os.ReadFile(filepath.Join(r.srv.cfg.Home, "settings.json"))
	if r.srv.cfg.Home != dir {
		t.Fatal("rig home")
	}
	secrets, _ := os.ReadFile(filepath.Join(dir, store.SecretsFile))
	good := func() url.Values {
		return url.Values{"domain": {"pbx.test"}, "username": {"carol"}, "password": {"carolpw"}, "transport": {"udp"}}
	}
	port := strconv.Itoa(r.srv.port)
	formHdr := func(extra map[string]string) map[string]string {
		h := map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Origin": r.origin,
			"Sec-Fetch-Site": "same-origin", "X-CSRF-Token": r.csrf, "HX-Request": "true"}
		for k, v := range extra {
			if v == "" {
				delete(h, k)
			} else {
				h[k] = v
			}
		}
		return h
	}
	// Fields no account may hold: 422, the words next to the field, the
	// value not shown back.
	for _, c := range []struct {
		name, field, value, words string
	}{
		{"long user", "username", strings.Repeat("u", maxNameBytes+1), "Too long: at most 128 bytes."},
		{"megabyte domain", "domain", strings.Repeat("d", 1<<20), "Too long: at most 261 bytes."},
		{"bad UTF-8 user", "username", "car\xffol", "Holds characters that cannot be used here"},
		{"CR LF in the domain", "domain", "pbx.test\r\nX-Evil: 1", "Holds characters that cannot be used here"},
		{"NUL in the password", "password", "pw\x00", "Holds characters that cannot be used here"},
		{"line separator in the name", "name", "Carol\u2028Evil", "Holds characters that cannot be used here"},
		{"escape in the proxy", "outbound_proxy", "proxy\x1b[2J", "Holds characters that cannot be used here"},
		{"long password", "password", strings.Repeat("p", maxPasswordBytes+1), "Too long: at most 1024 bytes."},
	} {
		v := good()
		v.Set(c.field, c.value)
		res, body := r.do("POST", "/welcome", strings.NewReader(v.Encode()), formHdr(nil))
		if res.StatusCode != 422 || !strings.Contains(body, `id="err-`+c.field+`"`) || !strings.Contains(body, c.words) {
			t.Errorf("%s: %d, words %v", c.name, res.StatusCode, strings.Contains(body, c.words))
		}
		if len(c.value) > 16 && strings.Contains(body, c.value[:len(c.value)-1]) || strings.ContainsAny(body, "\x00\x1b") || !utf8.ValidString(body) {
			t.Errorf("%s: the refused value is shown back", c.name)
		}
		welcomeUntouched(t, r, dir, c.name, settings, secrets)
	}
	// Requests not from this phone's page: 403 before anything is read.
	for _, c := range []struct {
		name  string
		extra map[string]string
	}{
		{"no CSRF token", map[string]string{"X-CSRF-Token": ""}},
		{"wrong CSRF token", map[string]string{"X-CSRF-Token": strings.Repeat("0", len(r.csrf))}},
		{"foreign Origin", map[string]string{"Origin": "http://evil.example"}},
		{"cross site", map[string]string{"Sec-Fetch-Site": "cross-site"}},
		{"foreign Host", map[string]string{"Host": "evil.example:" + port}},
		{"foreign Host and Origin", map[string]string{"Host": "evil.example:" + port, "Origin": "http://evil.example:" + port}},
	} {
		res, body := r.do("POST", "/welcome", strings.NewReader(good().Encode()), formHdr(c.extra))
		if res.StatusCode != 403 || !strings.HasPrefix(body, "forbidden: ") {
			t.Errorf("%s: %d %q", c.name, res.StatusCode, body)
		}
		welcomeUntouched(t, r, dir, c.name, settings, secrets)
	}
	// A body over the limit (8 MiB): 413, or the connection closed.
	huge := append([]byte("domain=pbx.test&username="), bytes.Repeat([]byte("x"), 9<<20)...)
	status, body, err := r.tryDo("POST", "/welcome", huge, formHdr(nil))
	t.Logf("huge body: %d %v", status, err)
	if err == nil && status != http.StatusRequestEntityTooLarge {
		t.Errorf("huge body: %d %.200q", status, body)
	}
	welcomeUntouched(t, r, dir, "huge body", settings, secrets)
	// German words next to the field.
	noAccounts(t, r, "de")
	settings, _ = os.ReadFile(filepath.Join(dir, "settings.json"))
	v := good()
	v.Set("username", "car\rol")
	if res, body := r.do("POST", "/welcome", strings.NewReader(v.Encode()), formHdr(nil)); res.StatusCode != 422 || !strings.Contains(body, "Enthält Zeichen, die hier nicht stehen dürfen") {
		t.Errorf("German: %d", res.StatusCode)
	}
	welcomeUntouched(t, r, dir, "German", settings, secrets)
	// And the good form still works after all that.
	if res, _ := r.form("/welcome", good()); res.StatusCode != 204 {
		t.Fatalf("good form: %d", res.StatusCode)
	}
	if pw, _ := sec.Get("other"); pw != "kept" {
		t.Fatal("the other secret was lost")
	}
}
