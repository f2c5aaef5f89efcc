package sipua

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/softphone/softphone/store"
)

// Phone is the SIP phone: its accounts, their registrations and its calls.
// New builds it; Serve runs it until its context ends.
type Phone struct {
	log     *slog.Logger
	bus     *Bus
	secrets SecretGetter
	db      HistoryDB
	media   MediaEngine
	product string

	mu       sync.Mutex
	settings store.Settings
	lines    map[string]*line // by account id, in settings order below
	order    []string
	calls    map[string]*call // by call id
	dialogs  map[string]*call // by dialog key (Call-ID and local tag)
	selected string
	stack    *stack
	serving  bool
	wg       sync.WaitGroup
}

// New builds a phone from its configuration. It opens no socket: Serve does.
func New(cfg Config) (*Phone, error) {
	p := &Phone{log: cfg.Logger, bus: cfg.Bus, secrets: cfg.Secrets, db: cfg.DB, media: cfg.MediaEngine,
		product: cfg.UserAgent, lines: map[string]*line{}, calls: map[string]*call{}, dialogs: map[string]*call{}}
	if p.log == nil {
		p.log = slog.Default()
	}
	if d, ok := cfg.DB.(*store.DB); ok && d == nil {
		p.db = nil // a nil *store.DB in the interface: no history
	}
	p.log = p.log.With("part", "sipua")
	if p.bus == nil {
		p.bus = NewBus()
	}
	if p.media == nil && cfg.Media != nil {
		p.media = AudioMedia(cfg.Media)
	}
	if p.media == nil {
		p.media = silentMedia{}
	}
	if p.product == "" {
		p.product = "softphone"
	}
	p.settings = cfg.Settings
	p.selected = cfg.Settings.SIP.SelectedAccount
	for _, a := range cfg.Settings.Accounts {
		l, _ := newLine(p, a)
		p.lines[a.ID] = l
		p.order = append(p.order, a.ID)
		if !a.Enabled {
			l.state = RegDisabled
		}
	}
	return p, nil
}

// Bus is the phone's event bus.
func (p *Phone) Bus() *Bus { return p.bus }

// Serve opens the SIP listeners, registers the enabled accounts and runs
// until ctx ends; then it ends every call, unregisters and closes.
func (p *Phone) Serve(ctx context.Context) error {
	p.mu.Lock()
	listen := p.settings.SIP.Listen
	p.mu.Unlock()
	if listen == "" {
		listen = "0.0.0.0:5060"
	}
	st, err := startStack(ctx, listen, p.product, p.log)
	if err != nil {
		return err
	}
	p.handle(st)
	st.serve()

	hctx, hcancel := context.WithCancel(context.Background())
	hdone := make(chan struct{})
	if p.db != nil {
		if n, err := p.db.CloseOpenHistory(ctx, ReasonCrashed, time.Now()); err != nil {
			p.log.Warn("closing history left open", "error", err)
		} else if n > 0 {
			p.log.Info("closed history entries left open by the last run", "n", n)
		}
		sub := p.bus.Subscribe(64, true)
		go func() { defer close(hdone); p.writeHistory(hctx, sub) }()
	} else {
		close(hdone)
	}

	p.mu.Lock()
	p.stack = st
	p.serving = true
	_ = st.cas.set(caFiles(p.settings.Accounts))
	for _, id := range p.order {
		a := p.lines[id].acc
		l, err := newLine(p, a)
		if err != nil {
			p.log.Error("account", "account", a.ID, "error", err)
			continue
		}
		p.lines[id] = l
		if a.Enabled {
			l.start()
		} else {
			l.state = RegDisabled
		}
	}
	p.mu.Unlock()

	<-ctx.Done()

	p.mu.Lock()
	p.serving = false
	calls := make([]*call, 0, len(p.calls))
	for _, c := range p.calls {
		calls = append(calls, c)
	}
	lines := make([]*line, 0, len(p.lines))
	for _, l := range p.lines {
		lines = append(lines, l)
	}
	p.mu.Unlock()
	for _, c := range calls {
		_ = c.hangup(context.Background(), ReasonLocalHangup)
	}
	var wg sync.WaitGroup
	for _, l := range lines {
		wg.Add(1)
		go func() { defer wg.Done(); l.halt(RegUnregistered) }()
	}
	wg.Wait()
	p.wg.Wait()
	st.close()
	hcancel()
	<-hdone
	return nil
}

func caFiles(accs []store.Account) []string {
	var out []string
	for _, a := range accs {
		if a.CAFile != "" {
			out = append(out, a.CAFile)
		}
	}
	return out
}

// Apply takes new settings at once: accounts added, changed, removed,
// enabled or disabled re-register or unregister; DND, auto-answer and the
// selected account apply to the next call. A changed sip.listen takes effect
// at the next start.
func (p *Phone) Apply(s store.Settings) {
	p.mu.Lock()
	old := p.lines
	p.settings = s
	p.selected = s.SIP.SelectedAccount
	if p.stack != nil {
		if err := p.stack.cas.set(caFiles(s.Accounts)); err != nil {
			p.log.Warn("tls ca files", "error", err)
		}
	}
	keep := map[string]*line{}
	var order []string
	var starts []*line
	var stops []func()
	for _, a := range s.Accounts {
		order = append(order, a.ID)
		if l, ok := old[a.ID]; ok && l.acc == a {
			keep[a.ID] = l
			continue
		}
		if l, ok := old[a.ID]; ok {
			final := RegUnregistered
			if !a.Enabled {
				final = RegDisabled
			}
			stops = append(stops, func() { l.halt(final) })
		}
		l, err := newLine(p, a)
		if err != nil {
			p.log.Error("account", "account", a.ID, "error", err)
			continue
		}
		keep[a.ID] = l
		if !a.Enabled {
			l.state = RegDisabled
		} else if p.serving {
			starts = append(starts, l)
		}
	}
	for id, l := range old {
		if _, ok := keep[id]; !ok {
			stops = append(stops, func() { l.halt(RegUnregistered) })
		}
	}
	p.lines, p.order = keep, order
	p.mu.Unlock()
	// Old registrations end (unregister) before new ones start, so a changed
	// account never has two bindings.
	go func() {
		var wg sync.WaitGroup
		for _, f := range stops {
			wg.Add(1)
			go func() { defer wg.Done(); f() }()
		}
		wg.Wait()
		for _, l := range starts {
			p.mu.Lock()
			current := p.lines[l.acc.ID] == l && p.serving
			p.mu.Unlock()
			if current {
				l.start()
			}
		}
	}()
}

// Accounts lists the accounts with their registration states, in settings order.
func (p *Phone) Accounts() []AccountStatus {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]AccountStatus, 0, len(p.order))
	for _, id := range p.order {
		if l, ok := p.lines[id]; ok {
			out = append(out, l.status())
		}
	}
	return out
}

// SelectAccount makes id the account of calls that name none.
func (p *Phone) SelectAccount(id string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.lines[id]; !ok {
		return fmt.Errorf("select account %s: %w", id, ErrNoAccount)
	}
	p.selected = id
	return nil
}

// lineFor picks the account of a new outgoing call.
func (p *Phone) lineFor(id string) (*line, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stack == nil || !p.serving {
		return nil, ErrNotServing
	}
	if id == "" {
		id = p.selected
	}
	if l, ok := p.lines[id]; ok && l.acc.Enabled {
		return l, nil
	}
	if id != "" && id != p.selected {
		return nil, fmt.Errorf("account %s: %w", id, ErrNoAccount)
	}
	for _, oid := range p.order {
		if l := p.lines[oid]; l.acc.Enabled {
			return l, nil
		}
	}
	return nil, ErrNoAccount
}

// lineByID gives the current line of an account; false when it was removed.
func (p *Phone) lineByID(id string) (*line, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	l, ok := p.lines[id]
	return l, ok
}

// Calls lists the calls in progress, oldest first.
func (p *Phone) Calls() []Call {
	p.mu.Lock()
	out := make([]Call, 0, len(p.calls))
	for _, c := range p.calls {
		out = append(out, c.snapshot())
	}
	p.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].StartedAt.Before(out[j].StartedAt) })
	return out
}

// Call gives one call in progress.
func (p *Phone) Call(id string) (Call, bool) {
	c, err := p.get(id)
	if err != nil {
		return Call{}, false
	}
	return c.snapshot(), true
}

func (p *Phone) get(id string) (*call, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c, ok := p.calls[id]
	if !ok {
		return nil, fmt.Errorf("call %s: %w", id, ErrNoCall)
	}
	return c, nil
}

func (p *Phone) settingsNow() store.Settings {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.settings
}

var errStopped = errors.New("phone stopped")
