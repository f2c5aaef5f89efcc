package web

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/store"
)

// refusingPhone dials like the phone does as far as the number goes: what
// sipua.NormalizeNumber refuses, Dial and Transfer refuse with
// sipua.ErrBadNumber and nothing is noted as dialled.
type refusingPhone struct{ *testPhone }

func (p refusingPhone) Dial(ctx context.Context, number, acc string) (sipua.Call, error) {
	if _, err := sipua.NormalizeNumber(number); err != nil {
		return sipua.Call{}, err
	}
	return p.testPhone.Dial(ctx, number, acc)
}

func (p refusingPhone) Transfer(ctx context.Context, id, target string) error {
	if _, err := sipua.NormalizeNumber(target); err != nil {
		return err
	}
	return p.testPhone.Transfer(ctx, id, target)
}

// TestBadNumberOnThePage: a number with CR/LF typed or pasted on the phone
// page (or a transfer target) is refused with the words in the
// page's language, and nothing is dialled.
func TestBadNumberOnThePage(t *testing.T) {
	var ph refusingPhone
	r := newRig(t, func(c *Config) {
		ph = refusingPhone{c.Phone.(*testPhone)}
		c.Phone = ph
	})
	r.login()
	for _, lang := range []struct{ code, want string }{
		{"en", "The number has characters a phone number cannot have."},
		{"de", "Die Nummer enthält Zeichen, die eine Telefonnummer nicht haben kann."},
	} {
		if _, err := r.st.Update(func(s *store.Settings) error { s.Appearance.Language = lang.code; return nil }); err != nil {
			t.Fatal(err)
		}
		for path, v := range map[string]url.Values{
			"/calls":                {"number": {"123\r\nX-Evil: 1"}},
			"/calls/c1/transfer":    {"target": {"sip:bob@pbx.test\r\nContact: <sip:evil@x>"}},
			"/calls?bad=percent-lf": {"number": {"tel:123%0D%0AX-Evil:1"}},
		} {
			res, body := r.form(path, v)
			if res.StatusCode != 400 || !strings.Contains(body, lang.want) {
				t.Errorf("%s %s: %d %q, want 400 with %q", lang.code, path, res.StatusCode, body, lang.want)
			}
		}
	}
	if did := ph.commands(); len(did) != 0 {
		t.Fatalf("dialled: %v", did)
	}
}
