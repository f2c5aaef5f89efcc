package sipua

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
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

	mu           sync.Mutex
	settings     store.Settings
	lines        map[string]*line // by account id, in settings order below
	order        []string
	calls        map[string]*call // by call id
	dialogs      map[string]*call // by dialog key (Call-ID and local tag)
	selected     string
	stack        *stack
	serving      bool
	stackMu      sync.Mutex // held while the stack opens or closes
	listen       string     // what the running stack listens on
	wg           sync.WaitGroup
	inviting     inviting      // goroutines in sipgo's INVITE client (inviting.go)
	stopping     chan struct{} // closed when Serve begins to shut down
	stopOnce     sync.Once
	noAnswer     time.Duration // outgoing calls ringing longer end with no-answer
	trace        *sipTrace     // recent SIP messages (SIPTrace)
	kaUDP        time.Duration // keep-alive interval on UDP
	kaTCP        time.Duration // keep-alive interval on TCP and TLS
	mediaTimeout time.Duration // Config.MediaTimeout: 0 sip.media_timeout_s, < 0 never (media_timeout.go)
	refused      refusedCounter
	ringing      int     // incoming calls not yet answered or refused (ringing.go), under mu
	busy         busyLog // incoming calls turned away for maxLiveCalls (livecalls.go)

	// OutboxInterrupted (recover.go)
	outboxOf  func(Event) []store.OutboxEvent
	office    *office     // busy lamps, presence, voicemail (issue 19)
	subs      subTable    // our subscriptions by dialog, for NOTIFYs
	subExpiry int         // seconds asked for in SUBSCRIBE; 0: subDefaultExpiry
	home      string      // where the TLS listener's own certificate is kept
	tlsNow    tlsSettings // what the running stack's TLS listener was opened with
	tabHeld   func() bool // a browser tab holds the audio (Config.TabHeld); nil: none
}

// New builds a phone from its configuration. It opens no socket: Serve does.
func New(cfg Config) (*Phone, error) {
	p := &Phone{log: cfg.Logger, bus: cfg.Bus, secrets: cfg.Secrets, db: cfg.DB, media: cfg.MediaEngine, mediaTimeout: cfg.MediaTimeout,
		product: cfg.UserAgent, noAnswer: noAnswerTimeout, trace: &sipTrace{}, stopping: make(chan struct{}),
		kaUDP: cfg.KeepAliveUDP, kaTCP: cfg.KeepAliveTCP, lines: map[string]*line{}, calls: map[string]*call{}, dialogs: map[string]*call{}}
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
	p.tabHeld = cfg.TabHeld
	if p.tabHeld == nil && cfg.Media != nil && cfg.Media.Bridge() != nil {
		p.tabHeld = cfg.Media.Bridge().Ready
	}
	if p.kaUDP <= 0 {
		p.kaUDP = keepAliveUDP
	}
	if p.kaTCP <= 0 {
		p.kaTCP = keepAliveTCP
	}
	if p.product == "" {
		p.product = "softphone"
	}
	p.office = newOffice(p)
	p.subExpiry = cfg.SubscribeExpiry
	p.settings = cfg.Settings
	p.home = cfg.Home
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
	osub := p.office.subscribe() // before the lines start: no registration is missed
	p.stackMu.Lock()
	err := p.openStack(ctx, listen)
	p.stackMu.Unlock()
	if err != nil {
		osub.Close()
		return err
	}
	hctx, hcancel := context.WithCancel(context.Background())
	hdone := make(chan struct{})
	if p.db != nil {
		p.recoverInterrupted(ctx)
		// Only the events the writer acts on wake it (issue 20).
		sub := p.bus.SubscribeOnly(64, true, historyEvents)
		go func() { defer close(hdone); p.writeHistory(hctx, sub) }()
	} else {
		close(hdone)
	}

	octx, ocancel := context.WithCancel(context.Background())
	odone := make(chan struct{})
	go func() { defer close(odone); p.office.run(octx, osub) }()

	<-ctx.Done()

	p.office.stop()
	ocancel()
	<-odone
	p.stopOnce.Do(func() { close(p.stopping) })
	p.stackMu.Lock()
	p.closeStack()
	p.stackMu.Unlock()
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
	p.mu.Unlock()
	for i := range out {
		out[i].Voicemail = p.Voicemail(out[i].ID)
	}
	p.mu.Lock()
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
		if l.noListener != "" {
			return nil, fmt.Errorf("account %s: %w: %s", id, ErrNoListener, l.noListener)
		}
		return l, nil
	}
	if id != "" && id != p.selected {
		return nil, fmt.Errorf("account %s: %w", id, ErrNoAccount)
	}
	for _, oid := range p.order {
		if l := p.lines[oid]; l.acc.Enabled && l.noListener == "" {
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
		if s := c.snapshot(); s.State != 0 { // 0: not yet announced
			out = append(out, s)
		}
	}
	p.mu.Unlock()
	// slices.SortFunc, not sort.Slice: that boxes the slice, an allocation
	// on every GET /calls (issue 20).
	slices.SortFunc(out, func(a, b Call) int { return a.StartedAt.Compare(b.StartedAt) })
	return out
}

// Call gives one call in progress.
func (p *Phone) Call(id string) (Call, bool) {
	c, err := p.get(id)
	if err != nil {
		return Call{}, false
	}
	s := c.snapshot()
	return s, s.State != 0
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

// noAnswerTimeout ends an outgoing call nobody answers (reason no-answer).
const noAnswerTimeout = 2 * time.Minute
