package webhook

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/store"
)

func TestGETQueryParameters(t *testing.T) {
	rc := newReceiver(t, nil)
	r := newRig(t, settingsFor(rc.URL+"/in?source=phone", "GET"), nil)
	pc := newCall(r.bus, sipua.DirIn, "+49 30 123")
	h := rc.wait(t, 1)[0]
	if h.Method != "GET" || h.Path != "/in" || len(h.Body) != 0 {
		t.Fatalf("%s %s body %q", h.Method, h.Path, h.Body)
	}
	if h.Header.Get("Content-Type") != "" || h.Header.Get("User-Agent") != "softphone/1.2.3-deb" {
		t.Errorf("headers %v", h.Header)
	}
	q, err := url.ParseQuery(h.RawQuery)
	if err != nil {
		t.Fatal(err)
	}
	if q.Get("source") != "phone" || len(q) != len(Fields)+1 {
		t.Errorf("query %v", q)
	}
	p, _ := Payload(sipua.Event{Kind: sipua.EventCallStarted, At: t0, Call: pc.c})
	for _, k := range Fields {
		if len(q[k]) != 1 || q[k][0] != p[k] {
			t.Errorf("%s = %q, want %q", k, q[k], p[k])
		}
	}
	if !strings.Contains(h.RawQuery, "number=%2B49%2030%20123") {
		t.Errorf("number not percent-encoded: %s", h.RawQuery)
	}
}

func TestGETTemplate(t *testing.T) {
	rc := newReceiver(t, nil)
	tmpl := rc.URL + "/crm/[id]/call?n=[number]&who=[name]&acc=[accountId]&acc2=[account_id]&at=[at]" +
		"&d=[duration]&ab=[answeredBy]&s=[seanceId]&ev=[event]&ts=[callstate_ts]&keep=[unknown]"
	r := newRig(t, settingsFor(tmpl, "GET", "call-started", "call-state-changed"), nil)
	pc := newCall(r.bus, sipua.DirIn, "+49 (30) 1234&5=6")
	pc.c.Name = "Jürgen Müller/ä?#%"
	pc.answer(time.Second)
	pc.hangup(90*time.Second, sipua.ReasonRemoteHangup)
	h := rc.wait(t, 1)[0]
	if h.Path != "/crm/"+pc.c.ID+"/call" {
		t.Errorf("path %q", h.Path)
	}
	q, err := url.ParseQuery(h.RawQuery)
	if err != nil {
		t.Fatal(err)
	}
	end := t0.Add(91 * time.Second)
	want := map[string]string{
		"n": "+49 (30) 1234&5=6", "who": "Jürgen Müller/ä?#%", "acc": pc.c.AccountID, "acc2": pc.c.AccountID,
		"at": strconv.FormatInt(end.UnixMilli(), 10), "d": "90", "ab": "no", "s": pc.c.SeanceID,
		"ev": "call-ended", "ts": strconv.FormatInt(end.UnixMilli(), 10), "keep": "[unknown]",
	}
	for k, w := range want {
		if q.Get(k) != w {
			t.Errorf("%s = %q, want %q (raw %s)", k, q.Get(k), w, h.RawQuery)
		}
	}
	if len(q) != len(want) {
		t.Errorf("a template must not get the fields as extra parameters: %v", q)
	}
}

func TestExpandAndEscape(t *testing.T) {
	p := map[string]string{"number": "a b+c/é", "id": "x", "duration_s": "1.5"}
	for _, tc := range []struct{ in, out string }{
		{"http://h/[id]?q=[number]", "http://h/x?q=a%20b%2Bc%2F%C3%A9"},
		{"http://h/?d=[duration]&e=[duration_s]&f=[nope]&g=[", "http://h/?d=1.5&e=1.5&f=[nope]&g=["},
		{"http://h/[[id]]", "http://h/[x]"},
	} {
		got, ok := expand(tc.in, p)
		if !ok || got != tc.out {
			t.Errorf("expand(%q) = %q, %v; want %q", tc.in, got, ok, tc.out)
		}
	}
	if _, ok := expand("http://h/?q=[nope]", p); ok {
		t.Error("no known placeholder: not a template")
	}
}

func TestAuthHeaderOnRealAndTestEvents(t *testing.T) {
	rc := newReceiver(t, func(n int64, w http.ResponseWriter, r *http.Request) int {
		if r.Header.Get("X-Api-Key") != "Bearer s3cr3t" {
			return http.StatusUnauthorized
		}
		return http.StatusCreated
	})
	st := settingsFor(rc.URL, "POST")
	st.Webhooks.HeaderName = "X-Api-Key"
	st.Accounts = []store.Account{{ID: "acc-1", Username: "alice", Domain: "pbx.example", Enabled: true}}
	r := newRig(t, st, func(c *Config) { c.Secrets = secrets{SecretHeader: "Bearer s3cr3t"} })
	newCall(r.bus, sipua.DirOut, "42")
	h := rc.wait(t, 1)[0]
	if h.Header.Get(TestHeader) != "" {
		t.Error("a real event carries the test marker")
	}
	eventually(t, "delivered", func() bool { return r.cnt.delivered.Load() == 1 })
	res, err := r.s.SendTest(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != http.StatusCreated || res.Body != "ok" {
		t.Errorf("test result %+v", res)
	}
	h = rc.wait(t, 2)[1]
	f := fields(t, h)
	if f["event"] != "call-started" || f["number"] != "test" || f["account"] != "alice@pbx.example" || f["account_id"] != "acc-1" ||
		h.Header.Get(TestHeader) != "true" || h.Header.Get(DeliveryIDHeader) == "" {
		t.Errorf("test event %v %v", f, h.Header)
	}
	if r.cnt.delivered.Load() != 1 {
		t.Errorf("the test event is counted: %d", r.cnt.delivered.Load())
	}
	// a refused test: the answer is a result, not an error
	r.s.cfg.Secrets = secrets{SecretHeader: "wrong"}
	res, err = r.s.SendTest(context.Background())
	if err != nil || res.Status != http.StatusUnauthorized {
		t.Errorf("refused test: %+v %v", res, err)
	}
}

func TestSendTestWithoutAddress(t *testing.T) {
	s := New(Config{DB: openDB(t, t.TempDir())})
	if _, err := s.SendTest(context.Background()); !errors.Is(err, ErrNoURL) {
		t.Fatalf("err %v", err)
	}
	s.Apply(settingsFor("http://127.0.0.1:1/", "POST"))
	if _, err := s.SendTest(context.Background()); !errors.Is(err, ErrSend) {
		t.Fatalf("refused connection: err %v", err)
	}
}

// verify is an independent Standard Webhooks check of one request.
func verify(t *testing.T, key []byte, h hit, content []byte) {
	t.Helper()
	id, ts := h.Header.Get("webhook-id"), h.Header.Get("webhook-timestamp")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || time.Since(time.Unix(sec, 0)).Abs() > 5*time.Minute {
		t.Fatalf("webhook-timestamp %q", ts)
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id + "." + ts + "."))
	m.Write(content)
	want := "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
	if got := h.Header.Get("webhook-signature"); got != want || id == "" {
		t.Fatalf("webhook-signature %q, want %q (id %q)", got, want, id)
	}
}

func TestSignatureVerifies(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	for name, secret := range map[string]string{
		"whsec": "whsec_" + base64.StdEncoding.EncodeToString(key),
		"bare":  base64.StdEncoding.EncodeToString(key),
		"text":  "not base64 at all!",
	} {
		t.Run(name, func(t *testing.T) {
			k := key
			if name == "text" {
				k = []byte(secret)
			}
			rc := newReceiver(t, nil)
			r := newRig(t, settingsFor(rc.URL, "POST"), func(c *Config) { c.Secrets = secrets{SecretSigning: secret} })
			newCall(r.bus, sipua.DirIn, "7")
			h := rc.wait(t, 1)[0]
			verify(t, k, h, h.Body)
			if h.Header.Get("webhook-id") != h.Header.Get(DeliveryIDHeader) {
				t.Error("webhook-id differs from the delivery id")
			}
			// GET: the request-URI is what is signed
			st := settingsFor(rc.URL+"/g", "GET")
			r.s.Apply(st)
			if _, err := r.s.SendTest(context.Background()); err != nil {
				t.Fatal(err)
			}
			g := rc.wait(t, 2)[1]
			verify(t, k, g, []byte(g.Path+"?"+g.RawQuery))
		})
	}
}
