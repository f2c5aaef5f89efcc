package api

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/store"
)

// fakePhone implements Phone for the handler suite: calls live in a map,
// every change is published on a real bus, and every command is recorded.
type fakePhone struct {
	bus *sipua.Bus
	set func() store.Settings

	mu       sync.Mutex
	calls    map[string]sipua.Call
	commands []string // "dial <number> <account>", "answer <id>", ...
	regs     map[string]sipua.AccountStatus
}

func newFakePhone(bus *sipua.Bus, set func() store.Settings) *fakePhone {
	return &fakePhone{bus: bus, set: set, calls: map[string]sipua.Call{}, regs: map[string]sipua.AccountStatus{}}
}

func (p *fakePhone) record(cmd string) {
	p.mu.Lock()
	p.commands = append(p.commands, cmd)
	p.mu.Unlock()
}

func (p *fakePhone) Commands() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.commands...)
}

// ring starts an incoming call, as a PBX would.
func (p *fakePhone) ring(number string) sipua.Call {
	now := time.Now()
	c := sipua.Call{ID: uuid.NewString(), SeanceID: uuid.NewString(), Direction: sipua.DirIn,
		State: sipua.StateRingingIn, Number: number, URI: "sip:" + number + "@pbx.test",
		StartedAt: now, StateAt: now, Reason: sipua.ReasonNone}
	p.put(sipua.EventCallStarted, c)
	return c
}

func (p *fakePhone) put(kind sipua.EventKind, c sipua.Call) {
	p.mu.Lock()
	if c.State == sipua.StateEnded {
		delete(p.calls, c.ID)
	} else {
		p.calls[c.ID] = c
	}
	p.mu.Unlock()
	p.bus.Publish(sipua.Event{Kind: kind, Call: c})
}

func (p *fakePhone) Dial(_ context.Context, number, accountID string) (sipua.Call, error) {
	p.record("dial " + number + " " + accountID)
	if accountID == "" {
		accountID = p.set().SIP.SelectedAccount
	}
	if accountID == "" {
		return sipua.Call{}, sipua.ErrNoAccount
	}
	now := time.Now()
	c := sipua.Call{ID: uuid.NewString(), SeanceID: uuid.NewString(), AccountID: accountID, Direction: sipua.DirOut,
		State: sipua.StateDialing, Number: number, URI: "sip:" + number + "@pbx.test", Dialed: number,
		StartedAt: now, StateAt: now, Reason: sipua.ReasonNone}
	p.put(sipua.EventCallStarted, c)
	return c, nil
}

func (p *fakePhone) change(id, cmd string, fn func(*sipua.Call) error) error {
	p.record(cmd + " " + id)
	p.mu.Lock()
	c, ok := p.calls[id]
	p.mu.Unlock()
	if !ok {
		return sipua.ErrNoCall
	}
	if err := fn(&c); err != nil {
		return err
	}
	c.StateAt = time.Now()
	kind := sipua.EventCallStateChanged
	if c.State == sipua.StateEnded {
		kind = sipua.EventCallEnded
	}
	p.put(kind, c)
	return nil
}

func (p *fakePhone) Answer(_ context.Context, id string) error {
	return p.change(id, "answer", func(c *sipua.Call) error {
		if c.State != sipua.StateRingingIn {
			return sipua.ErrCallState
		}
		c.State, c.AnsweredAt, c.AnsweredBy = sipua.StateActive, time.Now(), "no"
		return nil
	})
}

func (p *fakePhone) Hangup(_ context.Context, id string) error {
	return p.change(id, "hangup", func(c *sipua.Call) error {
		c.State, c.EndedAt, c.Reason, c.Outcome = sipua.StateEnded, time.Now(), sipua.ReasonLocalHangup, sipua.OutcomeAnswered
		if c.AnsweredAt.IsZero() {
			c.Outcome = sipua.OutcomeMissed
		}
		return nil
	})
}

func (p *fakePhone) Hold(_ context.Context, id string) error {
	return p.change(id, "hold", func(c *sipua.Call) error { c.State = sipua.StateHold; return nil })
}

func (p *fakePhone) Resume(_ context.Context, id string) error {
	return p.change(id, "resume", func(c *sipua.Call) error { c.State = sipua.StateActive; return nil })
}

func (p *fakePhone) SendDTMF(_ context.Context, id, digits string) error {
	return p.change(id, "dtmf "+digits, func(c *sipua.Call) error { return nil })
}

func (p *fakePhone) Transfer(_ context.Context, id, target string) error {
	return p.change(id, "transfer "+target, func(c *sipua.Call) error {
		if c.AccountID != "" {
			if _, ok := findAccount(p.set().Accounts, c.AccountID); !ok {
				return sipua.ErrAccountGone
			}
		}
		return nil
	})
}

func (p *fakePhone) Calls() []sipua.Call {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]sipua.Call, 0, len(p.calls))
	for _, c := range p.calls {
		out = append(out, c)
	}
	return out
}

func (p *fakePhone) Call(id string) (sipua.Call, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c, ok := p.calls[id]
	return c, ok
}

func (p *fakePhone) Accounts() []sipua.AccountStatus {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []sipua.AccountStatus
	for _, a := range p.set().Accounts {
		st, ok := p.regs[a.ID]
		if !ok {
			st = sipua.AccountStatus{State: "registered"}
		}
		st.Account = a
		out = append(out, st)
	}
	return out
}

func sipEventUpdated(c sipua.Call) sipua.Event {
	c.Muted = true
	return sipua.Event{Kind: sipua.EventCallUpdated, Call: c}
}
