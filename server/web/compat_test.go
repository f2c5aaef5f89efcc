package web

import (
	"context"
	"errors"
	"testing"
)

type fakeResult struct {
	Status int
	Body   string
}

type senderLike struct{ err error }

func (s senderLike) SendTest(context.Context) (fakeResult, error) {
	return fakeResult{Status: 202, Body: "ok"}, s.err
}

func TestTesterOfFindsSendTest(t *testing.T) {
	f := testerOf(senderLike{})
	if f == nil {
		t.Fatal("not found")
	}
	st, body, err := f(context.Background())
	if st != 202 || body != "ok" || err != nil {
		t.Fatalf("%d %q %v", st, body, err)
	}
	boom := errors.New("refused")
	if _, _, err := testerOf(senderLike{err: boom})(context.Background()); !errors.Is(err, boom) {
		t.Fatalf("error lost: %v", err)
	}
	if testerOf(struct{}{}) != nil || testerOf(nil) != nil {
		t.Fatal("found on a type without SendTest")
	}
}

func TestNormalizeNumber(t *testing.T) {
	for in, want := range map[string]string{
		"+49 (30) 123-45":                      "+493012345",
		"tel:+49-30-123;phone-context=x":       "+4930123",
		"TEL:%2B4930123":                       "+4930123",
		"callto://0301234":                     "0301234",
		"sip:bob@pbx.example.com":              "sip:bob@pbx.example.com",
		"sips:alice@example.com;transport=tls": "sips:alice@example.com;transport=tls",
		"  bob@pbx.test ":                      "bob@pbx.test",
		"*21#":                                 "*21#",
		"alice":                                "alice",
		"030/1234.5":                           "03012345",
		"":                                     "",
	} {
		if got := normalizeNumber(in); got != want {
			t.Errorf("%q: got %q want %q", in, got, want)
		}
	}
}

func FuzzNormalizeNumber(f *testing.F) {
	for _, s := range []string{"tel:+49 30 1", "sip:a@b", "callto://x", "(0)12-3", "%zz", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := normalizeNumber(s)
		if normalizeNumber(out) != out && !hasScheme(out) {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, out, normalizeNumber(out))
		}
	})
}

func hasScheme(s string) bool {
	for _, p := range []string{"tel:", "callto:", "TEL:", "CALLTO:"} {
		if len(s) >= len(p) && s[:len(p)] == p {
			return true
		}
	}
	return false
}
