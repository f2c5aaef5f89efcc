package web

import (
	"bufio"
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/store"
)

var (
	_ MissedCounter = (*store.DB)(nil)
	_ NameFinder    = (*store.DB)(nil)
)

// finished writes one ended call into the history.
func finished(t *testing.T, db *store.DB, e store.HistoryEntry) {
	t.Helper()
	ctx := context.Background()
	if err := db.StartHistory(ctx, e); err != nil {
		t.Fatal(err)
	}
	if e.EndedAt.IsZero() {
		e.EndedAt = e.StartedAt.Add(time.Second)
	}
	if err := db.FinishHistory(ctx, e); err != nil {
		t.Fatal(err)
	}
}

var missedBadge = regexp.MustCompile(`data-missed="(\d+)"`)

// A missed call puts a badge on the navigation of every page until History
// is seen; a call missed after that brings it back (issue 16 item 5).
func TestMissedBadgeAppearsAndClears(t *testing.T) {
	r, db := storeRig(t)
	badge := func(path string) string {
		t.Helper()
		_, body := r.do("GET", path, nil, nil)
		if m := missedBadge.FindStringSubmatch(body); m != nil {
			return m[1]
		}
		return ""
	}
	if b := badge("/"); b != "" {
		t.Fatalf("badge with no calls: %q", b)
	}
	finished(t, db, store.HistoryEntry{CallID: "m1", Direction: "in", Number: "+4930999", Outcome: "missed", Reason: "cancelled", StartedAt: time.Now().Add(-time.Minute)})
	r.bus.Publish(sipua.Event{Kind: sipua.EventCallEnded, Call: sipua.Call{ID: "m1"}}) // what the phone does: the count is read again
	// The count is read again once the hub has the event: the stream says so.
	waitStream(t, r, `data-missed="1"`)
	for _, p := range []string{"/", "/contacts", "/settings"} {
		if b := badge(p); b != "1" {
			t.Errorf("%s: badge %q, want 1", p, b)
		}
	}
	_, phone := r.do("GET", "/", nil, nil)
	if !strings.Contains(phone, `id="m-`) || !strings.Contains(phone, "Missed calls") || !strings.Contains(phone, `hx-vals="{&#34;account&#34;:&#34;&#34;,&#34;number&#34;:&#34;+4930999&#34;}"`) {
		t.Errorf("the phone page does not list the missed call with a call back button")
	}
	if b := badge("/history"); b != "" {
		t.Errorf("history page still shows badge %q", b)
	}
	if b := badge("/"); b != "" {
		t.Errorf("badge %q after History was seen", b)
	}
	// The phone's order: the call ends (the count is read: still 0), then
	// its entry is written; the badge follows the entry.
	wait := openStream(t, r)
	wait("event: missed") // the stream's first state
	r.bus.Publish(sipua.Event{Kind: sipua.EventCallEnded, Call: sipua.Call{ID: "m2"}})
	wait("event: history") // the hub has the end
	if b := badge("/"); b != "" {
		t.Fatalf("badge %q before the entry is written", b)
	}
	finished(t, db, store.HistoryEntry{CallID: "m2", Direction: "in", Number: "+4930888", Outcome: "missed", StartedAt: time.Now().Add(time.Second)})
	wait(`data-missed="1"`)
}

// waitStream reads the page's event stream until a line holds want.
func waitStream(t *testing.T, r *rig, want string) {
	t.Helper()
	openStream(t, r)(want)
}

// openStream opens the page's event stream; the function it gives reads on
// until a line holds want.
func openStream(t *testing.T, r *rig) func(want string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", r.origin+"/events", nil)
	req.AddCookie(r.cookie)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	rd := bufio.NewReader(res.Body)
	return func(want string) {
		t.Helper()
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				t.Fatalf("stream ended before %q: %v", want, err)
			}
			if strings.Contains(line, want) {
				return
			}
		}
	}
}

// History and the card of an ended call say why in words, with the SIP
// status in small print, in both languages; never "Ended by failed".
func TestOutcomeWordsOnPages(t *testing.T) {
	r, db := storeRig(t)
	now := time.Now()
	finished(t, db, store.HistoryEntry{CallID: "f1", Direction: "out", Number: "999", Outcome: "failed", Reason: "failed", SIPStatus: 404, StartedAt: now.Add(-3 * time.Minute)})
	finished(t, db, store.HistoryEntry{CallID: "f2", Direction: "out", Number: "998", Outcome: "declined", Reason: "busy", SIPStatus: 486, StartedAt: now.Add(-2 * time.Minute)})
	finished(t, db, store.HistoryEntry{CallID: "f3", Direction: "out", Number: "997", Outcome: "failed", Reason: "failed", StartedAt: now.Add(-time.Minute)})
	_, body := r.do("GET", "/history", nil, nil)
	for _, want := range []string{"No such number", `<small class="sip-status">SIP 404</small>`, "Busy", "Network unreachable", `<details class="card chart"`} {
		if !strings.Contains(body, want) {
			t.Errorf("history page lacks %q", want)
		}
	}
	if strings.Contains(body, "Ended by") && strings.Contains(body, "failed</dd>") {
		t.Errorf("history page shows a raw reason")
	}
	// The card of a call that has just ended, live.
	r.bus.Publish(sipua.Event{Kind: sipua.EventCallEnded, Call: sipua.Call{ID: "c404", Number: "12345", Direction: sipua.DirOut,
		State: sipua.StateEnded, Outcome: sipua.OutcomeFailed, Reason: sipua.ReasonFailed, SIPStatus: 404, EndedAt: time.Now()}})
	waitStream(t, r, `data-why="why.notfound"`)
	_, page := r.do("GET", "/", nil, nil)
	if !strings.Contains(page, `data-ended-call-id="c404"`) || !strings.Contains(page, "SIP 404") || !strings.Contains(page, `data-calls="0"`) {
		t.Errorf("the phone page lacks the ended call's card (or counts it as a call)")
	}
	if _, err := r.st.Update(func(s *store.Settings) error { s.Appearance.Language = "de"; return nil }); err != nil {
		t.Fatal(err)
	}
	_, page = r.do("GET", "/", nil, nil)
	if !strings.Contains(page, "Rufnummer existiert nicht") {
		t.Errorf("German card lacks the words")
	}
	if res, _ := r.form("/calls/ended/c404/dismiss", nil); res.StatusCode != http.StatusNoContent {
		t.Fatalf("dismiss: %d", res.StatusCode)
	}
	if _, page = r.do("GET", "/", nil, nil); strings.Contains(page, `data-ended-call-id="c404"`) {
		t.Errorf("the card stays after Dismiss")
	}
}

// The dial field suggests contacts and recent numbers; Enter on a name
// dials that contact's number; a SIP user no contact has is dialled as typed.
func TestDialFieldKnowsPeople(t *testing.T) {
	r, db := storeRig(t)
	ctx := context.Background()
	if _, err := db.CreateContact(ctx, store.Contact{Name: "Ada Lovelace", Number: "+49 30 1234567"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateContact(ctx, store.Contact{Name: "Desk 2", Number: "202"}); err != nil {
		t.Fatal(err)
	}
	finished(t, db, store.HistoryEntry{CallID: "r1", Direction: "out", Number: "+4940555", Outcome: "answered", Reason: "local-hangup", StartedAt: time.Now().Add(-time.Minute)})
	_, sug := r.do("GET", "/dial/suggest?number=ada", nil, map[string]string{"X-CSRF-Token": r.csrf})
	if !strings.Contains(sug, `value="+49 30 1234567"`) || !strings.Contains(sug, "Ada Lovelace") {
		t.Errorf("suggestions for ada: %s", sug)
	}
	_, sug = r.do("GET", "/dial/suggest?number=4940", nil, map[string]string{"X-CSRF-Token": r.csrf})
	if !strings.Contains(sug, `value="+4940555"`) {
		t.Errorf("suggestions for 4940: %s", sug)
	}
	_, page := r.do("GET", "/", nil, nil)
	if !strings.Contains(page, `list="dial-suggest"`) || !strings.Contains(page, `value="+4940555"`) {
		t.Errorf("the phone page has no dial suggestions")
	}
	for in, want := range map[string]string{"ada lovelace": "dial +49301234567 ", " Ada Lovelace ": "dial +49301234567 ", "Ada": "dial Ada ", "bob": "dial bob ", "201": "dial 201 ", "desk 2": "dial 202 ", "sip:Ada Lovelace@pbx": "dial sip:Ada Lovelace@pbx "} {
		res, _ := r.form("/calls", url.Values{"number": {in}})
		if res.StatusCode != http.StatusNoContent {
			t.Errorf("dial %q: %d", in, res.StatusCode)
			continue
		}
		got := r.phone.commands()
		if got[len(got)-1] != want {
			t.Errorf("dial %q: phone got %q, want %q", in, got[len(got)-1], want)
		}
	}
}

// sip.default_region is on the Settings page; a bad value is refused in the
// page's language.
func TestSettingsDefaultRegion(t *testing.T) {
	r, _ := storeRig(t)
	_, page := r.do("GET", "/settings", nil, nil)
	if !strings.Contains(page, `name="sip.default_region"`) || !strings.Contains(page, `id="hint-sip.default_region"`) {
		t.Fatal("no sip.default_region on the settings page")
	}
	res, body := r.form("/settings/numbers", url.Values{"sip.default_region": {"XY"}})
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "must be a region code like DE or US, got &#34;XY&#34;") {
		t.Fatalf("bad region: %d, message %q", res.StatusCode, regexp.MustCompile(`id="err-sip.default_region">[^<]*`).FindString(body))
	}
	if _, err := r.st.Update(func(s *store.Settings) error { s.Appearance.Language = "de"; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, body = r.form("/settings/numbers", url.Values{"sip.default_region": {"XY"}}); !strings.Contains(body, "muss ein Regionscode wie DE oder US sein") {
		t.Errorf("no German refusal")
	}
	if res, _ := r.form("/settings/numbers", url.Values{"sip.default_region": {"de"}}); res.StatusCode != http.StatusOK || r.st.Get().SIP.DefaultRegion != "DE" {
		t.Fatalf("region de: %d, kept %q", res.StatusCode, r.st.Get().SIP.DefaultRegion)
	}
}

// The Call handling section: auto-answer, direct calls, the ring and media
// timeouts are on the Settings page; a bad timeout is refused next to its
// field in the page's language and nothing of the form is saved.
func TestSettingsCallHandling(t *testing.T) {
	r, _ := storeRig(t)
	_, page := r.do("GET", "/settings", nil, nil)
	for _, f := range []string{`name="sip.auto_answer"`, `name="sip.allow_call_info_answer"`, `name="sip.accept_calls_from"`,
		`name="sip.ring_timeout_s" type="number" value="120"`, `name="sip.media_timeout_s" type="number" value="30"`, `href="#sec-handling"`} {
		if !strings.Contains(page, f) {
			t.Errorf("settings page lacks %s", f)
		}
	}
	form := url.Values{"sip.auto_answer": {"on"}, "sip.accept_calls_from": {"anyone"}, "sip.ring_timeout_s": {"45"}, "sip.media_timeout_s": {"3"}}
	res, body := r.form("/settings/handling", form)
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, `id="err-sip.media_timeout_s">must be 0 (never) or 5-3600 seconds, got 3<`) {
		t.Fatalf("media timeout 3: %d %q", res.StatusCode, regexp.MustCompile(`id="err-sip.media_timeout_s">[^<]*`).FindString(body))
	}
	if s := r.st.Get().SIP; s.AutoAnswer || s.AcceptCallsFrom != store.AcceptFromServers || s.RingTimeoutS != 120 || s.MediaTimeoutS != 30 {
		t.Fatalf("a refused form saved something: %+v", s)
	}
	if _, err := r.st.Update(func(s *store.Settings) error { s.Appearance.Language = "de"; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, body = r.form("/settings/handling", form); !strings.Contains(body, `id="err-sip.media_timeout_s">muss 0 (nie) oder zwischen 5 und 3600 Sekunden liegen, nicht 3<`) {
		t.Errorf("no German refusal of 3 s: %q", regexp.MustCompile(`id="err-sip.media_timeout_s">[^<]*`).FindString(body))
	}
	form.Set("sip.media_timeout_s", "x")
	form.Set("sip.ring_timeout_s", "0")
	if _, body = r.form("/settings/handling", form); !strings.Contains(body, "Muss eine ganze Zahl von 1 bis 3600 sein.") || !strings.Contains(body, "Muss eine ganze Zahl von 0 bis 3600 sein.") {
		t.Errorf("no German refusals: %q", regexp.MustCompile(`class="err"[^>]*>[^<]*`).FindAllString(body, -1))
	}
	form.Set("sip.media_timeout_s", "0")
	form.Set("sip.ring_timeout_s", "45")
	if res, _ := r.form("/settings/handling", form); res.StatusCode != http.StatusOK {
		t.Fatalf("handling: %d", res.StatusCode)
	}
	if s := r.st.Get().SIP; !s.AutoAnswer || s.AllowCallInfoAnswer || s.AcceptCallsFrom != store.AcceptFromAnyone || s.RingTimeoutS != 45 || s.MediaTimeoutS != 0 {
		t.Fatalf("saved %+v", s)
	}
	form.Set("sip.accept_calls_from", "everyone")
	if res, _ := r.form("/settings/handling", form); res.StatusCode != http.StatusUnprocessableEntity || r.st.Get().SIP.AcceptCallsFrom != store.AcceptFromAnyone {
		t.Fatalf("accept_calls_from everyone: %d", res.StatusCode)
	}
}
