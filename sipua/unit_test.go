package sipua

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/audio"
	"github.com/softphone/softphone/store"
)

func TestCompleteTarget(t *testing.T) {
	acc := store.Account{Domain: "pbx.example.com"}
	for _, tc := range []struct {
		in, want string
		err      error
	}{
		{"123", "sip:123@pbx.example.com", nil},
		{" +49 (30) 123-45 ", "sip:+4930123" + "45@pbx.example.com", nil},
		{"bob", "sip:bob@pbx.example.com", nil},
		{"*97#", "sip:*97#@pbx.example.com", nil},
		{"sip:alice@other.example", "sip:alice@other.example", nil},
		{"sips:alice@other.example:5061", "sips:alice@other.example:5061", nil},
		{"tel:+4930123", "tel:+4930123", nil},
		{"alice@other.example", "sip:alice@other.example", nil},
		{"", "", ErrNoNumber},
		{"   ", "", ErrNoNumber},
	} {
		got, err := completeTarget(tc.in, acc)
		if !errors.Is(err, tc.err) || got != tc.want {
			t.Errorf("%q: got %q, %v; want %q, %v", tc.in, got, err, tc.want, tc.err)
		}
	}
	if _, err := completeTarget("123", store.Account{}); !errors.Is(err, ErrAccountGone) {
		t.Errorf("no domain: %v", err)
	}
	if got, _ := completeTarget("123", store.Account{Domain: "sip:pbx.example.com:5080"}); got != "sip:123@pbx.example.com" {
		t.Errorf("domain with scheme and port: %q", got)
	}
}

func TestErrorTexts(t *testing.T) {
	for err, want := range map[error]string{
		ErrNoCall: "no call with that id", ErrNoNumber: "a call needs a number", ErrNoDigits: "no digits to send",
		ErrNoTarget: "a transfer needs a target", ErrAccountGone: "the account this call is on is no longer set up",
	} {
		if err.Error() != want {
			t.Errorf("%q want %q", err, want)
		}
	}
}

// TestRefusedOutcome is the table of how an unanswered outgoing call ends.
func TestRefusedOutcome(t *testing.T) {
	for _, tc := range []struct {
		status          int
		reason, outcome string
	}{
		{486, ReasonBusy, OutcomeDeclined}, {600, ReasonBusy, OutcomeDeclined},
		{603, ReasonDeclined, OutcomeDeclined}, {408, ReasonNoAnswer, OutcomeMissed},
		{480, ReasonNoAnswer, OutcomeMissed}, {487, ReasonCancelled, OutcomeMissed},
		{404, ReasonFailed, OutcomeFailed}, {503, ReasonFailed, OutcomeFailed}, {0, ReasonFailed, OutcomeFailed},
	} {
		p, _ := New(Config{Logger: testLogger()})
		sub := p.bus.Subscribe(8, true)
		l, _ := newLine(p, store.Account{ID: "a", Username: "u", Domain: "d"})
		c := p.newCall(l, DirOut, "")
		c.begin(StateDialing)
		c.onRefused(tc.status, errors.New("x"))
		<-sub.C()
		e := <-sub.C()
		if e.Kind != EventCallEnded || e.Call.Reason != tc.reason || e.Call.Outcome != tc.outcome || e.Call.State != StateEnded {
			t.Errorf("%d: %s %s %s", tc.status, e.Kind, e.Call.Reason, e.Call.Outcome)
		}
		sub.Close()
	}
}

// TestCallSnapshots walks an incoming call through its states with a
// stand-in media engine and checks every event's snapshot.
func TestCallSnapshots(t *testing.T) {
	p, _ := New(Config{Logger: testLogger()})
	sub := p.bus.Subscribe(32, true)
	defer sub.Close()
	l, _ := newLine(p, store.Account{ID: "acc", Username: "alice", Domain: "pbx"})
	c := p.newCall(l, DirIn, "")
	c.begin(StateRingingIn)
	c.setState(StateActive)
	c.remoteHold = true
	c.connected()
	c.localHold = true
	c.connected()
	c.conf = true
	c.connected()
	c.conf, c.localHold, c.remoteHold = false, false, false
	c.connected()
	c.end(ReasonRemoteHangup, OutcomeAnswered)
	want := []struct {
		kind  EventKind
		state CallState
	}{
		{EventCallStarted, StateRingingIn}, {EventCallStateChanged, StateActive}, {EventCallStateChanged, StateOnHold},
		{EventCallStateChanged, StateHold}, {EventCallStateChanged, StateConference}, {EventCallStateChanged, StateActive},
		{EventCallEnded, StateEnded},
	}
	var first Call
	for i, w := range want {
		e := <-sub.C()
		if e.Kind != w.kind || e.Call.State != w.state {
			t.Fatalf("event %d: %s %s, want %s %s", i, e.Kind, e.Call.State, w.kind, w.state)
		}
		if i == 0 {
			first = e.Call
			if e.Call.Reason != ReasonNone || !e.Call.AnsweredAt.IsZero() {
				t.Fatalf("started %+v", e.Call)
			}
		}
		if e.Call.StartedAt != first.StartedAt || e.Call.SeanceID != first.SeanceID || e.Call.ID != first.ID {
			t.Fatalf("event %d changed identity or start", i)
		}
		if e.Call.StateAt.Before(first.StartedAt) {
			t.Fatalf("event %d state time before start", i)
		}
		if i > 0 && (e.Call.AnsweredAt.IsZero() || e.Call.AnsweredBy != "no") {
			t.Fatalf("event %d: %+v", i, e.Call)
		}
		if i < len(want)-1 && e.Call.Reason != ReasonNone {
			t.Fatalf("reason before end: %q", e.Call.Reason)
		}
	}
	if c.ctx.Err() == nil {
		t.Fatal("call context not cancelled")
	}
	if r, ok := contextCause(c); !ok || r != ReasonRemoteHangup {
		t.Fatalf("cause %q", r)
	}
}

func contextCause(c *call) (string, bool) {
	var re reasonError
	if errors.As(contextCauseErr(c), &re) {
		return re.reason, true
	}
	return "", false
}

func TestSDPOfferAnswer(t *testing.T) {
	ours := audio.CodecsByPriority([]string{"G722", "PCMU"})
	offer := buildSDP("127.0.0.1", 4000, ours, audio.SendRecv, 1, 1)
	r, err := parseSDP(offer)
	if err != nil {
		t.Fatal(err)
	}
	if r.addr.Port != 4000 || r.addr.IP.String() != "127.0.0.1" || len(r.codecs) != 3 || r.dir != audio.SendRecv {
		t.Fatalf("parsed %+v", r)
	}
	// A peer that prefers PCMU and has its own event PT.
	peer := "v=0\r\no=- 1 1 IN IP4 10.0.0.1\r\ns=-\r\nc=IN IP4 10.0.0.2\r\nt=0 0\r\n" +
		"m=audio 5000 RTP/AVP 0 9 96\r\na=rtpmap:96 telephone-event/8000\r\na=fmtp:96 0-15\r\na=sendonly\r\n"
	pr, err := parseSDP([]byte(peer))
	if err != nil {
		t.Fatal(err)
	}
	n, err := choose(pr, ours, true)
	if err != nil {
		t.Fatal(err)
	}
	if n.codec.Name != "G722" || n.dtmfPT != 96 || n.remote.String() != "10.0.0.2:5000" || n.dir != audio.SendOnly {
		t.Fatalf("answer choice %+v", n)
	}
	if answerDirection(n.dir, false) != audio.RecvOnly || answerDirection(audio.SendRecv, true) != audio.SendOnly ||
		answerDirection(audio.SendOnly, true) != audio.Inactive || answerDirection(audio.Inactive, false) != audio.Inactive {
		t.Fatal("answer directions")
	}
	n, err = choose(pr, ours, false)
	if err != nil || n.codec.Name != "PCMU" {
		t.Fatalf("reading an answer picks its first codec: %+v %v", n, err)
	}
	if _, err := choose(remoteSDP{codecs: []audio.Codec{{Name: "GSM", PT: 3, ClockRate: 8000}}}, ours, true); !errors.Is(err, errNoCodec) {
		t.Fatalf("no common codec: %v", err)
	}
	hold := strings.Replace(peer, "c=IN IP4 10.0.0.2", "c=IN IP4 0.0.0.0", 1)
	if hr, _ := parseSDP([]byte(hold)); hr.dir != audio.Inactive {
		t.Fatal("0.0.0.0 is hold")
	}
}

func TestHeaderParsers(t *testing.T) {
	r, err := parseReplaces("abc@host;to-tag=t1;from-tag=f1;early-only")
	if err != nil || r.callID != "abc@host" || r.toTag != "t1" || r.fromTag != "f1" || !r.earlyOnly {
		t.Fatalf("replaces %+v %v", r, err)
	}
	if _, err := parseReplaces("abc;to-tag=t1"); err == nil {
		t.Fatal("replaces without from-tag accepted")
	}
	esc := escapeHeaderValue(r.String())
	if strings.ContainsAny(esc, ";=@") || unescape(esc) != r.String() {
		t.Fatalf("escape %q", esc)
	}
	for body, want := range map[string]byte{"Signal=5\r\nDuration=160\r\n": '5', "Signal= #\r\n": '#', "signal=11": '#', "Signal=d": 'D'} {
		if d, ok := parseDTMFInfo("application/dtmf-relay", []byte(body)); !ok || d != want {
			t.Errorf("%q: %q %v", body, d, ok)
		}
	}
	if d, ok := parseDTMFInfo("application/dtmf", []byte("7")); !ok || d != '7' {
		t.Error("application/dtmf")
	}
	if _, ok := parseDTMFInfo("text/plain", []byte("Signal=1")); ok {
		t.Error("text/plain accepted")
	}
	if code, reason, ok := parseSipfrag([]byte("SIP/2.0 486 Busy Here\r\n")); !ok || code != 486 || reason != "Busy Here" {
		t.Errorf("sipfrag %d %q", code, reason)
	}
	if _, _, ok := parseSipfrag([]byte("HTTP/1.1 200 OK")); ok {
		t.Error("not a sipfrag")
	}
}

func TestDecimalSeconds(t *testing.T) {
	for in, want := range map[float64]string{0: "0", -1: "0", 12: "12", 12.5: "12.5", 0.0004: "0", 61.2504: "61.25", 1e7: "10000000"} {
		if got := decimalSeconds(in); got != want {
			t.Errorf("decimalSeconds(%v) = %q, want %q", in, got, want)
		}
	}
}

func TestFlatRules(t *testing.T) {
	now := time.Now()
	c := Call{ID: "x", State: StateActive, Reason: "remote-hangup", AnsweredAt: now.Add(-12345 * time.Millisecond), EndedAt: now}
	if f := flatOf(Event{Kind: EventCallStateChanged, Call: c}); f["reason"] != "none" || f["duration_s"] != "0" || f["answered_by"] != "no" || f["event_ts"] != "" {
		t.Errorf("state change: %v", f)
	}
	if f := flatOf(Event{Kind: EventCallEnded, Call: c, At: now}); f["reason"] != "remote-hangup" || f["duration_s"] != "12.345" || f["state"] != "ended" {
		t.Errorf("ended: %v", f)
	}
}

func flatOf(e Event) map[string]string { p, _ := Flat(e); return p }
