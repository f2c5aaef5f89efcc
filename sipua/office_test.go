package sipua

import (
	"context"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// officePhone runs a phone registered as user on the presence kamailio,
// with short subscriptions (refreshed every few seconds).
func officePhone(t *testing.T, kam *testpeer.KamPresence, user string, mod func(*store.Account), cfgMods ...func(*Config)) *tphone {
	t.Helper()
	acc := account(&kam.Kam, user, "udp")
	if mod != nil {
		mod(&acc)
	}
	s := store.Settings{SIP: store.SIPSettings{Listen: "127.0.0.1:0", SelectedAccount: acc.ID}, Accounts: []store.Account{acc}}
	mods := append([]func(*Config){func(c *Config) { c.SubscribeExpiry = 5 }}, cfgMods...)
	tp := startPhoneWith(t, s, secretMap{"account:" + acc.ID: user + "pw"}, nil, mods...)
	tp.waitRegistered()
	return tp
}

// waitLine waits until the phone shows contact id's line in state, and
// says how long that took.
func (tp *tphone) waitLine(id, state string, timeout time.Duration) time.Duration {
	tp.t.Helper()
	t0 := time.Now()
	if tp.ContactState(id).LineState == state {
		return 0
	}
	tp.wait("line of "+id+" "+state, timeout, func(e Event) bool {
		return e.Kind == EventOffice && tp.ContactState(id).LineState == state
	})
	return time.Since(t0)
}

func (tp *tphone) waitPresence(id, value string, timeout time.Duration) {
	tp.t.Helper()
	if tp.ContactState(id).Presence == value {
		return
	}
	tp.wait("presence of "+id+" "+value, timeout, func(e Event) bool {
		return e.Kind == EventOffice && tp.ContactState(id).Presence == value
	})
}

// TestBusyLampFollowsCalls: alice watches bob (both this phone); carol (this
// phone too) calls bob, bob answers, carol hangs up. kamailio's
// pua_dialoginfo reports bob's dialogs; alice's lamp follows each step
// within a second.
func TestBusyLampFollowsCalls(t *testing.T) {
	kam := testpeer.KamailioPresence(t)
	alice := officePhone(t, kam, "alice", nil)
	bob := officePhone(t, kam, "bob", nil)
	carol := officePhone(t, kam, "carol", nil)
	alice.SetWatched([]Watched{{ContactID: "c-bob", Number: "bob"}})
	alice.waitLine("c-bob", LineIdle, 10*time.Second)

	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("kamailio:\n%s", kam.Log())
		}
	})
	// Each step is timed from the command that caused it to alice's lamp
	// (figures for the README). The wait allows 10 s: kamailio 5.6's
	// pua_dialoginfo sometimes sends two PUBLISHes with one SIP-If-Match,
	// the second is refused (412, "No E_Tag match" in its log) and pua
	// publishes again; the lamp follows once that NOTIFY comes.
	t0 := time.Now()
	c, err := carol.Dial(context.Background(), "bob", "")
	if err != nil {
		t.Fatal(err)
	}
	alice.waitLine("c-bob", LineRinging, 10*time.Second)
	t.Logf("ringing shown %v after carol dialled bob", time.Since(t0))
	in := bob.waitState("", StateRingingIn, 5*time.Second)
	t0 = time.Now()
	if err := bob.Answer(context.Background(), in.ID); err != nil {
		t.Fatal(err)
	}
	alice.waitLine("c-bob", LineBusy, 10*time.Second)
	t.Logf("busy shown %v after bob answered", time.Since(t0))
	bob.waitState(in.ID, StateActive, 5*time.Second)
	carol.waitState(c.ID, StateActive, 5*time.Second)
	t0 = time.Now()
	if err := carol.Hangup(context.Background(), c.ID); err != nil {
		t.Fatal(err)
	}
	alice.waitLine("c-bob", LineIdle, 10*time.Second)
	t.Logf("idle shown %v after carol hung up", time.Since(t0))
	bob.waitState(in.ID, StateEnded, 5*time.Second)
	if got := alice.ContactState("c-nobody"); got.LineState != LineUnknown || got.Presence != PresenceUnknown {
		t.Errorf("a contact not watched: %+v, want unknown/unknown", got)
	}
}

// pickupTest: carol (pickup/caller.py, which accepts Replaces) calls bob
// (this phone, left ringing); alice sees it ring and picks it up; the call
// she gets carries carol's 440 Hz tone, bob's phone stops ringing.
func pickupTest(t *testing.T, prefix string) {
	kam := testpeer.KamailioPresence(t)
	rm := &recMedia{}
	alice := officePhone(t, kam, "alice", func(a *store.Account) { a.PickupPrefix = prefix },
		func(c *Config) { c.MediaEngine = rm })
	bob := officePhone(t, kam, "bob", nil)
	alice.SetWatched([]Watched{{ContactID: "c-bob", Number: "bob"}})
	alice.waitLine("c-bob", LineIdle, 10*time.Second)
	if _, err := alice.Pickup(context.Background(), "c-bob"); err == nil {
		t.Fatal("pickup of an idle line was not refused")
	}

	caller := kam.StartCaller(t, "carol", "bob")
	if caller.Await("ringing", 5*time.Second) == "" {
		t.Fatalf("carol's call did not ring at bob:\n%s\n%s", caller.Output(), kam.Log())
	}
	in := bob.waitState("", StateRingingIn, 5*time.Second)
	alice.waitLine("c-bob", LineRinging, 10*time.Second)
	c, err := alice.Pickup(context.Background(), "c-bob")
	if err != nil {
		t.Fatal(err)
	}
	alice.waitState(c.ID, StateActive, 5*time.Second)
	if caller.Await("replaced-by", 5*time.Second) == "" || caller.Await("cancelled-original", 5*time.Second) == "" {
		t.Fatalf("carol's call was not taken over:\n%s", caller.Output())
	}
	ended := bob.waitState(in.ID, StateEnded, 5*time.Second)
	if ended.Outcome != OutcomeMissed {
		t.Errorf("bob's ringing call ended %s/%s, want missed", ended.Outcome, ended.Reason)
	}
	// Audio by content: carol's tone reaches alice's media.
	if !testpeer.WaitFor(5*time.Second, func() bool { return len(rm.session(0).heard()) >= 8000 }) {
		t.Fatal("no audio from carol after the pickup")
	}
	tone := testpeer.AnalyseTone(rm.session(0).heard(), 8000)
	if math.Abs(tone.Hz-440) > 10 || tone.RMS < 0.05 {
		t.Errorf("alice heard %.0f Hz at RMS %.3f, want carol's 440 Hz tone", tone.Hz, tone.RMS)
	}
	got, _ := alice.Call(c.ID)
	if got.SeanceID == "" || got.Direction != DirOut {
		t.Errorf("the picked-up call is %+v, want an ordinary outgoing call with a seance id", got)
	}
	if err := alice.Hangup(context.Background(), c.ID); err != nil {
		t.Fatal(err)
	}
	if l := caller.Await("ended", 5*time.Second); !strings.Contains(l, "ended") {
		t.Errorf("carol's side did not end: %s", caller.Output())
	}
	alice.waitLine("c-bob", LineIdle, 3*time.Second)
}

func TestPickupByReplaces(t *testing.T) { pickupTest(t, "") }
func TestPickupByPrefix(t *testing.T)   { pickupTest(t, "**") }

// TestPresenceBothWays: alice and bob publish their status and watch each
// other: do-not-disturb, a manual "away", and busy during a call.
func TestPresenceBothWays(t *testing.T) {
	kam := testpeer.KamailioPresence(t)
	on := func(a *store.Account) { a.Presence = true }
	alice := officePhone(t, kam, "alice", on)
	bob := officePhone(t, kam, "bob", on)
	alice.SetWatched([]Watched{{ContactID: "c-bob", Number: "bob"}})
	bob.SetWatched([]Watched{{ContactID: "c-alice", Number: "alice"}})
	alice.waitPresence("c-bob", PresenceAvailable, 10*time.Second)
	bob.waitPresence("c-alice", PresenceAvailable, 10*time.Second)

	s := bob.settingsNow()
	s.SIP.DoNotDisturb = true
	bob.Apply(s)
	alice.waitPresence("c-bob", PresenceDND, 5*time.Second)

	s = alice.settingsNow()
	s.SIP.PresenceStatus = PresenceAway
	alice.Apply(s)
	bob.waitPresence("c-alice", PresenceAway, 5*time.Second)
	if got := alice.MyPresence(); got != PresenceAway {
		t.Errorf("alice's own status %q, want away", got)
	}

	s = bob.settingsNow()
	s.SIP.DoNotDisturb = false
	bob.Apply(s)
	alice.waitPresence("c-bob", PresenceAvailable, 5*time.Second)
	c, err := bob.Dial(context.Background(), "alice", "")
	if err != nil {
		t.Fatal(err)
	}
	alice.waitPresence("c-bob", PresenceBusy, 5*time.Second)
	_ = bob.Hangup(context.Background(), c.ID)
	alice.waitPresence("c-bob", PresenceAvailable, 5*time.Second)
}

// TestVoicemailCount: a message-summary PUBLISH for alice (SIPp as the
// voicemail server) lights alice's count; a second one clears it.
func TestVoicemailCount(t *testing.T) {
	kam := testpeer.KamailioPresence(t)
	alice := officePhone(t, kam, "alice", func(a *store.Account) { a.MWI = true })
	waitVM := func(want *Voicemail) {
		t.Helper()
		ok := func() bool {
			got := alice.Voicemail(alice.acc.ID)
			return (got == nil) == (want == nil) && (got == nil || *got == *want)
		}
		if ok() {
			return
		}
		alice.wait("voicemail", 5*time.Second, func(e Event) bool { return e.Kind == EventOffice && ok() })
	}
	if got := alice.Voicemail(alice.acc.ID); got != nil {
		t.Errorf("voicemail %+v before anything was published, want unknown (nil)", got)
	}
	dir := testpeer.SIPpDir(t)
	publish := func(args ...string) string {
		t.Helper()
		cmd := testpeer.SIPp(t, dir, append([]string{"-sf", "publish_mwi.xml", kam.Addr(), "-s", "alice", "-m", "1",
			"-set", "from", "voicemail", "-au", "voicemail", "-ap", "voicemailpw", "-trace_logs", "-log_file", dir + "/mwi.log"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("publish_mwi: %v\n%s", err, out)
		}
		b, _ := os.ReadFile(dir + "/mwi.log")
		for _, l := range strings.Split(string(b), "\n") {
			if e, ok := strings.CutPrefix(l, "etag: "); ok {
				return strings.TrimSpace(e)
			}
		}
		return ""
	}
	etag := publish("-set", "waiting", "yes", "-set", "new", "2", "-set", "old", "1")
	waitVM(&Voicemail{New: 2, Old: 1})
	if etag == "" {
		t.Fatal("no ETag from the first PUBLISH")
	}
	publish("-set", "etag", etag, "-set", "waiting", "no", "-set", "new", "0", "-set", "old", "3")
	waitVM(&Voicemail{New: 0, Old: 3})
	if got := alice.Accounts()[0].Voicemail; got == nil || *got != (Voicemail{Old: 3}) {
		t.Errorf("Accounts() voicemail %+v, want 0 new 3 old", got)
	}
}

// TestSubscriptionsSurviveRegistrarRestart: kamailio keeps subscriptions in
// memory only; after a restart alice's lamp for bob works again without
// anything done on alice's side.
func TestSubscriptionsSurviveRegistrarRestart(t *testing.T) {
	kam := testpeer.KamailioPresence(t)
	alice := officePhone(t, kam, "alice", nil)
	bob := officePhone(t, kam, "bob", nil)
	alice.SetWatched([]Watched{{ContactID: "c-bob", Number: "bob"}})
	alice.waitLine("c-bob", LineIdle, 10*time.Second)

	t0 := time.Now()
	kam.Stop()
	kam.Start()
	t.Logf("kamailio restarted in %v", time.Since(t0))
	// bob registers again (a changed account re-registers at once).
	s := bob.settingsNow()
	s.Accounts[0].Name = "bob again"
	bob.Apply(s)
	bob.waitRegistered()
	// alice's refresh meets a notifier that forgot her (481): she subscribes anew.
	alice.wait("a failed refresh", 15*time.Second, func(e Event) bool { return e.Kind == EventSubscriptionFailed })
	t.Logf("refresh failed %v after the restart began", time.Since(t0))
	alice.waitLine("c-bob", LineIdle, 15*time.Second)
	t.Logf("subscribed again %v after the restart began", time.Since(t0))

	caller := kam.StartCaller(t, "carol", "bob")
	if caller.Await("ringing", 5*time.Second) == "" {
		t.Fatalf("carol's call did not ring at bob:\n%s", caller.Output())
	}
	alice.waitLine("c-bob", LineRinging, 10*time.Second)
	t.Logf("ringing seen %v after the restart began", time.Since(t0))
}

// heard is every PCMU sample the session received so far.
func (s *recSession) heard() []float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]float64(nil), s.samples...)
}

// TestPresenceWithBaresip: baresip's presence module and this phone see
// each other's status through kamailio: baresip publishes open at start
// and closed on presence_offline; it shows this phone Online while it
// publishes and Offline once the publication is removed.
func TestPresenceWithBaresip(t *testing.T) {
	kam := testpeer.KamailioPresence(t)
	alice := officePhone(t, kam, "alice", func(a *store.Account) { a.Presence = true })
	bob := testpeer.StartBaresip(t, testpeer.BaresipOpts{User: "bob", Pass: "bobpw", Registrar: kam.Addr(), Presence: true,
		Contacts: []string{`"Alice" <sip:alice@` + kam.Addr() + `>;presence=p2p`}})
	t.Cleanup(func() {
		if t.Failed() { // what each side sent and what kamailio did with it
			t.Logf("alice's SIP trace:\n%s\nbob:\n%s\nkamailio:\n%s", alice.SIPTrace(), bob.Log(), kam.Log())
		}
	})
	alice.SetWatched([]Watched{{ContactID: "c-bob", Number: "bob"}})
	alice.waitPresence("c-bob", PresenceAvailable, 10*time.Second)
	contacts := func() string { out, _ := bob.Ctrl("contacts"); return out }
	if !testpeer.WaitFor(10*time.Second, func() bool { return strings.Contains(contacts(), "Online") }) {
		t.Fatalf("baresip does not see alice online:\n%s", contacts())
	}
	if _, err := bob.Ctrl("presence_offline"); err != nil {
		t.Fatal(err)
	}
	alice.waitPresence("c-bob", PresenceOffline, 5*time.Second)
	s := alice.settingsNow()
	s.Accounts[0].Presence = false // publication removed (Expires: 0)
	alice.Apply(s)
	if !testpeer.WaitFor(10*time.Second, func() bool { return strings.Contains(contacts(), "Offline") }) {
		t.Errorf("baresip still sees alice online after her publication ended:\n%s", contacts())
	}
}
