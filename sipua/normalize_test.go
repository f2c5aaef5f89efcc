package sipua

import (
	"errors"
	"testing"

	"github.com/softphone/softphone/store"
)

func TestNormalizeNumber(t *testing.T) {
	for in, want := range map[string]string{
		"+49 (30) 123-45":                      "+493012345",
		"tel:+49-30-123;phone-context=x":       "+4930123",
		"TEL:%2B4930123":                       "+4930123",
		"callto://0301234":                     "0301234",
		"callto:sip:bob@pbx.test":              "sip:bob@pbx.test",
		"sip:bob@pbx.example.com":              "sip:bob@pbx.example.com",
		"sips:alice@example.com;transport=tls": "sips:alice@example.com;transport=tls",
		"  bob@pbx.test ":                      "bob@pbx.test",
		"*21#":                                 "*21#",
		"alice":                                "alice",
		"030/1234.5":                           "03012345",
		"":                                     "",
	} {
		if got, err := NormalizeNumber(in); err != nil || got != want {
			t.Errorf("%q: got %q, %v; want %q", in, got, err, want)
		}
	}
}

// TestNumberInjection: what would write headers of its own into the INVITE
// (CR, LF, NUL, other controls, '<', '>', spaces inside a URI) is refused
// with ErrBadNumber, also percent-encoded in a link, by the normaliser and by
// the dialler's completion (the API path, which does not normalise).
func TestNumberInjection(t *testing.T) {
	for _, in := range []string{
		"123\r\nX-Evil: 1", "123\nVia: x", "123\x00", "sip:bob@host\r\nContact: <sip:evil@x>",
		"bob@host>;evil", "<sip:bob@host>", "sip:bob @host", "tel:123%0D%0AX-Evil:%201",
		"callto://1%0a2", "al\tice", "123\x7f", "bob\u2028@host", "tel:1%00", "12%252B3", "\xff123",
	} {
		if got, err := NormalizeNumber(in); !errors.Is(err, ErrBadNumber) {
			t.Errorf("NormalizeNumber(%q) = %q, %v; want ErrBadNumber", in, got, err)
		}
	}
	acc := store.Account{Domain: "pbx.example.com"}
	for _, in := range []string{"123\r\nX-Evil: 1", "sip:bob@host\r\nContact: x", "bob@ho st", "sip:a@b>", "12\x003"} {
		if got, err := completeTarget(in, acc); !errors.Is(err, ErrBadNumber) {
			t.Errorf("completeTarget(%q) = %q, %v; want ErrBadNumber", in, got, err)
		}
	}
	if got, err := referTarget("<sip:bob@host?Replaces=a%40b%3Bto-tag%3D1%3Bfrom-tag%3D2>"); err != nil || got == "" {
		t.Errorf("Refer-To with Replaces: %q, %v", got, err)
	}
	for _, in := range []string{"<sip:bob@host\r\nEvil: 1>", "", "<>", "<sip:a@b> \x00"} {
		if got, err := referTarget(in); err == nil {
			t.Errorf("referTarget(%q) = %q, want an error", in, got)
		}
	}
	if _, err := uriHeader("Replaces", "abc;to-tag=1;from-tag=2\r\nEvil: 1"); !errors.Is(err, ErrBadNumber) {
		t.Errorf("Replaces with CR LF: %v", err)
	}
	if h, err := uriHeader("Contact", "<sip:evil@x>"); h != nil || err != nil {
		t.Errorf("a Contact from a Refer-To URI was taken: %v, %v", h, err)
	}
}

// FuzzNormalizeNumber: normalising is idempotent, never lets a character
// through that checkChars refuses, and never panics.
func FuzzNormalizeNumber(f *testing.F) {
	for _, s := range []string{"tel:+49 30 1", "sip:a@b", "callto://x", "(0)12-3", "%zz", "", "12%252B3",
		"callto:tel:%2B1", "tel:%0d%0a", "bob@host", "+", "a+1", "sip:sip:x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := NormalizeNumber(s)
		if err != nil {
			if !errors.Is(err, ErrBadNumber) {
				t.Fatalf("%q: error %v is not ErrBadNumber", s, err)
			}
			return
		}
		again, err := NormalizeNumber(out)
		if err != nil || again != out {
			t.Fatalf("not idempotent: %q -> %q -> %q, %v", s, out, again, err)
		}
		if checkChars(out, false) != nil {
			t.Fatalf("%q -> %q holds a refused character", s, out)
		}
	})
}
