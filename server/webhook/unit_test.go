package webhook

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/sipua"
)

func TestPayloadUnknownMomentsAndUnansweredEnd(t *testing.T) {
	c := sipua.Call{ID: "c", Direction: sipua.DirOut, State: sipua.StateRingingOut, Reason: sipua.ReasonNone}
	p, ok := Payload(sipua.Event{Kind: sipua.EventCallEnded, Call: c})
	if !ok || p["event_ts"] != "" || p["callstart_ts"] != "" || p["callstate_ts"] != "" {
		t.Errorf("unknown moments: %v", p)
	}
	if p["state"] != "ended" || p["duration_s"] != "0" || p["reason"] != "none" || p["answered_by"] != "" {
		t.Errorf("unanswered end: %v", p)
	}
	c.Reason = sipua.ReasonCancelled
	if p, _ := Payload(sipua.Event{Kind: sipua.EventCallEnded, Call: c}); p["reason"] != "cancelled" {
		t.Errorf("reason %q", p["reason"])
	}
	// while active the talk time is 0, even when the snapshot has moments
	c.AnsweredAt, c.EndedAt = t0, t0.Add(time.Minute)
	if p, _ := Payload(sipua.Event{Kind: sipua.EventCallStateChanged, Call: c}); p["duration_s"] != "0" || p["reason"] != "none" {
		t.Errorf("active: %v", p)
	}
	if _, ok := Payload(sipua.Event{Kind: sipua.EventCallUpdated, Call: c}); ok {
		t.Error("call-updated became a webhook")
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for in, want := range map[string]time.Duration{
		"": 0, "7": 7 * time.Second, "-3": 0, "soon": 0,
		now.Add(90 * time.Second).Format(http.TimeFormat): 90 * time.Second,
		now.Add(-time.Hour).Format(http.TimeFormat):       0,
	} {
		if got := parseRetryAfter(in, now); got != want {
			t.Errorf("Retry-After %q: %s, want %s", in, got, want)
		}
	}
}

func TestBackoffBounds(t *testing.T) {
	s := New(Config{RetryBase: time.Second, RetryMax: time.Minute})
	for attempt := 1; attempt < 100; attempt++ {
		d := s.backoff(attempt, 0)
		ceil := min(time.Second<<min(attempt-1, 20), time.Minute)
		if d < ceil/2 || d > ceil {
			t.Fatalf("attempt %d: %s outside [%s, %s]", attempt, d, ceil/2, ceil)
		}
	}
	if d := s.backoff(1, time.Hour); d != time.Hour {
		t.Errorf("Retry-After not honoured: %s", d)
	}
}

func TestSigningKey(t *testing.T) {
	k := []byte{0, 1, 2, 250, 251}
	b := base64.StdEncoding.EncodeToString(k)
	for in, want := range map[string]string{"whsec_" + b: string(k), b: string(k), "plain text": "plain text", "whsec_###": "###"} {
		if got := string(signingKey(in)); got != want {
			t.Errorf("signingKey(%q) = %q, want %q", in, got, want)
		}
	}
	// the example of the Standard Webhooks specification
	key := signingKey("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	body := []byte(`{"test": 2432232314}`)
	if got := Sign(key, "msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", body); got != "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=" {
		t.Errorf("spec example: %s", got)
	}
}

func TestGetURLQuery(t *testing.T) {
	p := map[string]string{"event": "call-ended", "number": "a&b"}
	for in, prefix := range map[string]string{
		"http://h/x":      "http://h/x?event=call-ended&id=",
		"http://h/x?a=1":  "http://h/x?a=1&event=call-ended&id=",
		"http://h/x?":     "http://h/x?event=call-ended&id=",
		"http://h/x?a=1&": "http://h/x?a=1&event=call-ended&id=",
	} {
		got, err := getURL(in, p)
		if err != nil || !strings.HasPrefix(got, prefix) || !strings.Contains(got, "&number=a%26b&") {
			t.Errorf("getURL(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := getURL("http://h/x#frag", p); err == nil {
		t.Error("a fragment cannot take parameters")
	}
}

// FuzzExpand: any template gives a string, every known placeholder is
// replaced, and no value can add a character outside the unreserved set.
func FuzzExpand(f *testing.F) {
	for _, s := range []string{"http://h/[id]?n=[number]", "[[at]]", "[", "]", "[nope][accountId]", "http://h/?q=[name]&[duration]"} {
		f.Add(s, "va lue/&?#[]%")
	}
	f.Fuzz(func(t *testing.T, tmpl, v string) {
		p := map[string]string{}
		for _, k := range Fields {
			p[k] = v
		}
		out, ok := expand(tmpl, p)
		if !ok {
			if out != tmpl {
				t.Fatalf("no placeholder but changed: %q", out)
			}
			return
		}
		if e := escape(v); strings.ContainsAny(e, " &?#[]/") {
			t.Fatalf("escape(%q) = %q", v, e)
		}
	})
}
