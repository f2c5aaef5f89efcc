package sipua

import (
	"context"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/softphone/softphone/audio"
	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// secretMap is a SecretGetter for tests.
type secretMap map[string]string

func (m secretMap) Get(name string) (string, error) {
	if v, ok := m[name]; ok {
		return v, nil
	}
	return "", store.ErrNoSecret
}

// tphone is a running phone with a lossless subscription to its bus.
type tphone struct {
	*Phone
	t   *testing.T
	sub *Subscription
	acc store.Account
	// stop stops the phone before the test ends (the cleanup still
	// waits for Serve to return).
	stop context.CancelFunc
}

func testLogger() *slog.Logger {
	if os.Getenv("SIPUA_DEBUG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// withAudio gives the phone a real audio engine.
func withAudio(t *testing.T) func(*Config) {
	return func(c *Config) {
		e, err := audio.NewEngine(audio.EngineConfig{Home: t.TempDir(), Logger: testLogger()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = e.Close() })
		c.Media = e
	}
}

// account makes an account on kamailio for user.
func account(kam *testpeer.Kam, user, transport string) store.Account {
	return store.Account{ID: uuid.NewString(), Name: user, Username: user, Domain: "127.0.0.1", Port: kam.Port,
		Transport: transport, ExpiryS: 60, Enabled: true}
}

// startPhone runs a phone with one account (password pass) until the test ends.
func startPhone(t *testing.T, acc store.Account, pass string, mod ...func(*store.Settings)) *tphone {
	t.Helper()
	s := store.Settings{SIP: store.SIPSettings{Listen: "127.0.0.1:0", SelectedAccount: acc.ID}, Accounts: []store.Account{acc}}
	for _, m := range mod {
		m(&s)
	}
	return startPhoneWith(t, s, secretMap{"account:" + acc.ID: pass}, nil)
}

func startPhoneWith(t *testing.T, s store.Settings, sec secretMap, db HistoryDB, mods ...func(*Config)) *tphone {
	t.Helper()
	bus := NewBus()
	sub := bus.Subscribe(16, true)
	cfg := Config{Settings: s, Secrets: sec, Bus: bus, Logger: testLogger()}
	if db != nil {
		cfg.DB = db
	}
	for _, m := range mods {
		m(&cfg)
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(15 * time.Second):
			t.Errorf("Serve did not return")
		}
		sub.Close()
	})
	if !testpeer.WaitFor(5*time.Second, func() bool { return p.stackPort() != 0 }) {
		t.Fatal("phone did not start")
	}
	tp := &tphone{Phone: p, t: t, sub: sub, stop: cancel}
	if len(s.Accounts) > 0 {
		tp.acc = s.Accounts[0]
	}
	return tp
}

// wait returns the first event that matches, failing after timeout.
func (tp *tphone) wait(what string, timeout time.Duration, match func(Event) bool) Event {
	tp.t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		select {
		case e := <-tp.sub.C():
			if match(e) {
				return e
			}
		case <-deadline.C:
			tp.t.Fatalf("timed out waiting for %s", what)
			return Event{}
		}
	}
}

func (tp *tphone) waitRegistered() {
	tp.t.Helper()
	tp.wait("registration", 10*time.Second, func(e Event) bool { return e.Kind == EventRegistration && e.Registration.OK })
}

// waitState waits for a call event of call id (any call when id is "")
// reaching state.
func (tp *tphone) waitState(id string, state CallState, timeout time.Duration) Call {
	tp.t.Helper()
	return tp.wait("call "+id+" in "+state.String(), timeout, func(e Event) bool {
		return e.Call.ID != "" && (id == "" || e.Call.ID == id) && e.Call.State == state &&
			e.Kind != EventDTMF && e.Kind != EventCallUpdated
	}).Call
}

// callEvents collects the state-changing events of call id until it ends.
func (tp *tphone) callEvents(id string, timeout time.Duration) []Event {
	tp.t.Helper()
	var out []Event
	tp.wait("end of call "+id, timeout, func(e Event) bool {
		if e.Call.ID != id || e.Kind == EventDTMF || e.Kind == EventCallUpdated {
			return false
		}
		out = append(out, e)
		return e.Kind == EventCallEnded
	})
	return out
}

func states(evs []Event) []string {
	var s []string
	for _, e := range evs {
		s = append(s, e.Call.State.String())
	}
	return s
}

func getenv(k string) string { return os.Getenv(k) }
