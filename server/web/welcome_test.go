package web

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/softphone/softphone/store"
)

// pbxRefusesPhone is a phone whose PBX answers every registration test 403.
type pbxRefusesPhone struct{ *testPhone }

func (pbxRefusesPhone) TestRegistration(context.Context, store.Account, string) (string, error) {
	return "403 Forbidden", errors.New("test registration: registration failed: 403 Forbidden")
}

func noAccounts(t *testing.T, r *rig, lang string) {
	t.Helper()
	if _, err := r.st.Update(func(s *store.Settings) error {
		s.Accounts, s.SIP.SelectedAccount, s.Appearance.Language = nil, "", lang
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestWelcomeCard: with no account the phone page is the welcome card; its
// form is tested against the PBX and saved only when the PBX takes it
// (issue 16 item 8).
func TestWelcomeCard(t *testing.T) {
	dir := t.TempDir()
	sec := store.OpenSecrets(dir)
	r := newRig(t, func(c *Config) { c.Secrets = sec; c.Home = dir })
	noAccounts(t, r, "en")
	r.login()
	_, body := r.do("GET", "/", nil, nil)
	if !strings.Contains(body, `id="welcome-form"`) || strings.Contains(body, `id="dial-form"`) {
		t.Fatal("no welcome card without an account")
	}
	if _, body = r.do("GET", "/?welcome=skip", nil, nil); !strings.Contains(body, `id="dial-form"`) {
		t.Fatal("Not now shows no dial pad")
	}
	// A missing user stays on the card, next to the field.
	res, body := r.form("/welcome", url.Values{"domain": {"pbx.test"}, "transport": {"udp"}})
	if res.StatusCode != 422 || !strings.Contains(body, `id="err-username"`) {
		t.Fatalf("missing user: %d", res.StatusCode)
	}
	// Server, user, password: tested, saved, on to the dial pad.
	res, _ = r.form("/welcome", url.Values{"domain": {"pbx.test"}, "username": {"carol"}, "password": {"carolpw"}, "transport": {"udp"}})
	if res.StatusCode != 204 || !strings.Contains(res.Header.Get("HX-Location"), `"path":"/"`) {
		t.Fatalf("welcome: %d %v", res.StatusCode, res.Header)
	}
	accs := r.st.Get().Accounts
	if len(accs) != 1 || accs[0].Username != "carol" || accs[0].Domain != "pbx.test" || !accs[0].Enabled {
		t.Fatalf("accounts %+v", accs)
	}
	if pw, err := sec.Get("account:" + accs[0].ID); err != nil || pw != "carolpw" {
		t.Fatalf("password %q %v", pw, err)
	}
	if got := r.phone.commands(); len(got) == 0 || got[len(got)-1] != "testreg carol" {
		t.Fatalf("registration not tested: %v", got)
	}
	if _, body = r.do("GET", "/", nil, nil); !strings.Contains(body, `id="dial-form"`) {
		t.Fatal("no dial pad once the account is there")
	}
}

// TestWelcomeRefused: a PBX that says no keeps the card, says why in the
// page's language and saves nothing.
func TestWelcomeRefused(t *testing.T) {
	dir := t.TempDir()
	sec := store.OpenSecrets(dir)
	r := newRig(t, func(c *Config) { c.Secrets = sec; c.Home = dir; c.Phone = pbxRefusesPhone{&testPhone{}} })
	noAccounts(t, r, "de")
	r.login()
	_, body := r.form("/welcome", url.Values{"domain": {"pbx.test"}, "username": {"carol"}, "password": {"nope"}, "transport": {"udp"}})
	want := "Die Telefonanlage antwortete: 403 Forbidden: die Telefonanlage weist dieses Konto ab"
	if !strings.Contains(body, want) || !strings.Contains(body, `value="carol"`) {
		t.Fatalf("refusal lacks %q or the typed user:\n%s", want, body[strings.Index(body, `id="welcome"`):])
	}
	if n := len(r.st.Get().Accounts); n != 0 {
		t.Fatalf("%d accounts saved after a refusal", n)
	}
}
