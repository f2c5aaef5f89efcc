package sipua

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// The hostile-peer suite of issue 12: SIPp as a scanner, a forger and a
// flood against a running phone. Each test logs the phone's file
// descriptors and heap under the attack (fdsAndHeap).

func anyone(s *store.Settings) { s.SIP.AcceptCallsFrom = store.AcceptFromAnyone }

// sippScenario copies a scenario of testdata into a SIPp folder.
func sippScenario(t *testing.T, names ...string) string {
	t.Helper()
	dir := testpeer.SIPpDir(t)
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		must(t, err)
		must(t, os.WriteFile(filepath.Join(dir, n), b, 0o644))
	}
	return dir
}

// runSIPp runs cmd to its end and fails the test with its output when it
// fails.
func runSIPp(t *testing.T, cmd *exec.Cmd, p *tphone) {
	t.Helper()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sipp: %v\n%s\ntrace:\n%s", err, tail(string(out)), tail(p.SIPTrace()))
	}
}

// TestStrangerInviteRefused: with sip.accept_calls_from servers (the
// default), an INVITE from a host that is none of the account's servers
// (SIPp on 127.0.0.2; the account's domain is 127.0.0.1) gets 403, is
// counted, and never becomes a call, auto-answer on or not. The same host
// calling the Contact the phone registered (its unguessable user) rings.
func TestStrangerInviteRefused(t *testing.T) {
	acc := sippAccount(t, testpeer.FreeUDPPort(t))
	p := startPhone(t, acc, "", autoAnswer)
	dir := sippScenario(t, "hostile_invite.xml")
	fds, heap := fdsAndHeap()
	runSIPp(t, testpeer.SIPp(t, dir, "-sf", "hostile_invite.xml", "127.0.0.1:"+itoa(p.stackPort()), "-s", "100",
		"-i", "127.0.0.2", "-mi", "127.0.0.2", "-m", "20", "-r", "50", "-p", itoa(testpeer.FreeUDPPort(t))), p)
	fds2, heap2 := fdsAndHeap()
	t.Logf("20 stranger INVITEs: fds %d -> %d, heap %d -> %d KiB", fds, fds2, heap/1024, heap2/1024)
	if n := p.RefusedRequests(); n != 20 {
		t.Fatalf("refused %d INVITEs, want 20", n)
	}
	if tr := p.SIPTrace(); strings.Count(tr, "SIP/2.0 403 Forbidden") < 20 || strings.Contains(tr, "SIP/2.0 200 OK") {
		t.Fatalf("trace:\n%s", tail(tr))
	}
	if calls := p.Calls(); len(calls) != 0 {
		t.Fatalf("a refused INVITE made a call: %+v", calls)
	}

	// To our Contact's user: a provider's other edge address gets through.
	p.mu.Lock()
	user := p.lines[acc.ID].contactUser
	p.mu.Unlock()
	if !strings.HasPrefix(user, "sp") || strings.Contains(user, acc.Username) {
		t.Fatalf("contact user %q", user)
	}
	s := p.settingsNow()
	s.SIP.AutoAnswer = false
	s.SIP.RingTimeoutS = 1
	p.Apply(s)
	cmd := testpeer.SIPp(t, dir, "-sf", "hostile_invite.xml", "127.0.0.1:"+itoa(p.stackPort()), "-s", user,
		"-i", "127.0.0.2", "-mi", "127.0.0.2", "-m", "1", "-p", itoa(testpeer.FreeUDPPort(t)))
	done := make(chan error, 1)
	go func() { done <- cmd.Run() }()
	c := p.waitState("", StateRingingIn, 10*time.Second)
	ended := p.waitState(c.ID, StateEnded, 10*time.Second)
	if ended.Reason != ReasonNoAnswer || ended.Outcome != OutcomeMissed {
		t.Fatalf("ended %+v", ended)
	}
	if err := <-done; err != nil {
		t.Fatalf("sipp: %v", err)
	}
	if n := p.RefusedRequests(); n != 20 {
		t.Fatalf("refused %d, want still 20", n)
	}
}

// TestForgedInDialogRequests: someone who knows the Call-ID and the phone's
// tag but not the caller's sends BYE, re-INVITE, REFER and NOTIFY, and an
// INVITE with Replaces naming the call with a wrong from-tag: each gets 481
// (SIPp checks), the call stays up, the phone calls nobody, and hangs up
// the call itself at the end (SIPp takes that BYE).
func TestForgedInDialogRequests(t *testing.T) {
	acc := sippAccount(t, testpeer.FreeUDPPort(t))
	p := startPhone(t, acc, "", autoAnswer, anyone)
	dir := sippScenario(t, "hostile_forged.xml", "hostile_replaces.xml")
	cmd := testpeer.SIPp(t, dir, "-sf", "hostile_forged.xml", "127.0.0.1:"+itoa(p.stackPort()), "-s", "alice",
		"-m", "1", "-p", itoa(testpeer.FreeUDPPort(t)))
	done := make(chan error, 1)
	var out []byte
	go func() { var err error; out, err = cmd.CombinedOutput(); done <- err }()
	c := p.waitState("", StateActive, 10*time.Second)
	cc, err := p.get(c.ID)
	must(t, err)
	var callID, local string
	must(t, cc.do(bg, func() error { callID, local, _ = cc.tags(); return nil }))
	runSIPp(t, testpeer.SIPp(t, dir, "-sf", "hostile_replaces.xml", "127.0.0.1:"+itoa(p.stackPort()), "-s", "alice",
		"-set", "cid", callID, "-set", "ltag", local, "-m", "1", "-p", itoa(testpeer.FreeUDPPort(t))), p)
	if !testpeer.WaitFor(10*time.Second, func() bool { return strings.Count(p.SIPTrace(), "SIP/2.0 481 ") >= 5 }) {
		t.Fatalf("not five answers 481:\n%s", tail(p.SIPTrace()))
	}
	if got, ok := p.Call(c.ID); !ok || got.State != StateActive || len(p.Calls()) != 1 {
		t.Fatalf("after the forgeries: %+v, %d calls", got, len(p.Calls()))
	}
	must(t, p.Hangup(bg, c.ID))
	if err := <-done; err != nil {
		t.Fatalf("sipp: %v\n%s\ntrace:\n%s", err, tail(string(out)), tail(p.SIPTrace()))
	}
	evs := p.callEvents(c.ID, 10*time.Second)
	if last := evs[len(evs)-1].Call; last.Reason != ReasonLocalHangup || last.Outcome != OutcomeAnswered {
		t.Fatalf("call ended %+v (states %v)", last, states(evs))
	}
	tr := p.SIPTrace()
	if strings.Contains(tr, "INVITE sip:premium@") || strings.Contains(tr, "127.0.0.9:40000") {
		t.Fatalf("the forged REFER or re-INVITE was acted on:\n%s", tail(tr))
	}
}

// TestInviteFloodAndRingTimeout: 60 INVITEs at once ring at most 8 calls;
// the rest get 486 at once. The ringing ones end after sip.ring_timeout_s
// as missed, reason no-answer, with a closed history entry each.
func TestInviteFloodAndRingTimeout(t *testing.T) {
	db, err := store.OpenDB(filepath.Join(t.TempDir(), "softphone.db"))
	must(t, err)
	t.Cleanup(func() { _ = db.Close() })
	acc := sippAccount(t, testpeer.FreeUDPPort(t))
	s := store.Settings{SIP: store.SIPSettings{Listen: "127.0.0.1:0", SelectedAccount: acc.ID, RingTimeoutS: 2,
		AcceptCallsFrom: store.AcceptFromAnyone}, Accounts: []store.Account{acc}}
	p := startPhoneWith(t, s, secretMap{}, db)
	dir := sippScenario(t, "hostile_invite.xml")
	fds, heap := fdsAndHeap()
	cmd := testpeer.SIPp(t, dir, "-sf", "hostile_invite.xml", "127.0.0.1:"+itoa(p.stackPort()), "-s", "alice",
		"-m", "60", "-r", "200", "-p", itoa(testpeer.FreeUDPPort(t)))
	done := make(chan error, 1)
	var out []byte
	go func() { var err error; out, err = cmd.CombinedOutput(); done <- err }()
	peak, peakFDs, peakHeap := 0, fds, heap
	var ended []Call
	for len(ended) < maxRingingIn {
		e := p.wait("the ringing calls to time out", 20*time.Second, func(e Event) bool { return e.Kind == EventCallEnded || e.Kind == EventCallStarted })
		if e.Kind == EventCallEnded {
			ended = append(ended, e.Call)
		}
		peak = max(peak, len(p.Calls()))
		f, h := fdsAndHeap()
		peakFDs, peakHeap = max(peakFDs, f), max(peakHeap, h)
	}
	if err := <-done; err != nil {
		t.Fatalf("sipp: %v\n%s\ntrace:\n%s", err, tail(string(out)), tail(p.SIPTrace()))
	}
	t.Logf("60 INVITEs: peak %d calls, fds %d -> peak %d, heap %d -> peak %d KiB", peak, fds, peakFDs, heap/1024, peakHeap/1024)
	if peak > maxRingingIn {
		t.Fatalf("%d calls at once, want at most %d", peak, maxRingingIn)
	}
	tr := p.SIPTrace()
	if n := strings.Count(tr, "SIP/2.0 486 Busy Here"); n != 60-maxRingingIn {
		t.Errorf("%d answers 486, want %d", n, 60-maxRingingIn)
	}
	for _, c := range ended {
		if c.Reason != ReasonNoAnswer || c.Outcome != OutcomeMissed {
			t.Fatalf("ended %+v", c)
		}
		h := waitHistory(t, db, c.ID, func(h store.HistoryEntry) bool { return !h.Open })
		if h.Outcome != OutcomeMissed || h.Reason != ReasonNoAnswer {
			t.Fatalf("history %+v", h)
		}
	}
	select {
	case e := <-p.sub.C():
		if e.Kind == EventCallStarted {
			t.Fatalf("a ninth call: %+v", e.Call)
		}
	default:
	}
}
