package sipua

import (
	"strings"
	"sync"

	"github.com/emiago/sipgo/sip"
)

// Watched is a contact whose line (RFC 4235) and presence (RFC 3856) the
// phone subscribes to, through its account's PBX.
type Watched struct {
	ContactID string
	Number    string
	AccountID string // the contact's line; empty: the selected account
}

// ContactState is what the phone knows of a watched contact.
type ContactState struct {
	LineState string // idle, ringing, busy, unknown
	Presence  string // available, away, busy, dnd, offline, unknown
}

// watchState is the live state of one watched contact.
type watchState struct {
	w        Watched
	line     *line
	dialogs  map[string]dialogElement // by dialog id (partial documents merge)
	state    string
	ring     *ringingDialog
	presence string
	// tags remembers the tags each call-id was reported with: kamailio
	// sometimes NOTIFYs an early dialog (with tags) before its Trying
	// (without), which then replaces it.
	tags map[string][2]string
}

// office keeps the subscriptions and publications of the phone: busy lamps
// and presence of watched contacts, each account's message-summary and the
// user's published presence. reconcile makes what runs match what is wanted
// (watched contacts, accounts, registrations); it is called on every change
// of those.
type office struct {
	p *Phone

	// rmu serializes reconcile and stopAll: a reconcile reads what is
	// wanted, then applies it; two at once could apply an older reading
	// over a newer one (a contact no longer watched keeps its lamp), and
	// one running across a stop could start what the stop had ended.
	rmu sync.Mutex

	mu           sync.Mutex
	watched      []Watched
	state        map[string]*watchState   // by contact id
	subs         map[string]*subscription // by key (event + contact or account id)
	pubs         map[string]*publication  // by account id
	vm           map[string]*Voicemail    // by account id; nil: unknown
	up           map[*line]bool           // lines that registered at least once
	failedAt     map[string]bool          // accounts whose registration failed since the last success
	stopped      bool
	lastPresence string        // what was last published
	moved        chan struct{} // closed and replaced on every change of a line state
}

func newOffice(p *Phone) *office {
	return &office{p: p, state: map[string]*watchState{}, subs: map[string]*subscription{},
		pubs: map[string]*publication{}, vm: map[string]*Voicemail{}, up: map[*line]bool{}, failedAt: map[string]bool{},
		moved: make(chan struct{})}
}

// SetWatched replaces the list of watched contacts; subscriptions follow at once.
func (p *Phone) SetWatched(ws []Watched) {
	o := p.office
	o.mu.Lock()
	o.watched = append([]Watched(nil), ws...)
	keep := map[string]bool{}
	for _, w := range ws {
		keep[w.ContactID] = true
		if st, ok := o.state[w.ContactID]; ok {
			st.w = w
		} else {
			o.state[w.ContactID] = &watchState{w: w, state: LineUnknown, presence: PresenceUnknown}
		}
	}
	for id := range o.state {
		if !keep[id] {
			delete(o.state, id)
		}
	}
	o.mu.Unlock()
	o.reconcile()
}

// ContactState gives what is known of a contact; unknown when not watched.
func (p *Phone) ContactState(contactID string) ContactState {
	o := p.office
	o.mu.Lock()
	defer o.mu.Unlock()
	if st, ok := o.state[contactID]; ok {
		return ContactState{LineState: st.state, Presence: st.presence}
	}
	return ContactState{LineState: LineUnknown, Presence: PresenceUnknown}
}

// Voicemail gives an account's message counts; nil while unknown.
func (p *Phone) Voicemail(accountID string) *Voicemail {
	o := p.office
	o.mu.Lock()
	defer o.mu.Unlock()
	if v := o.vm[accountID]; v != nil {
		c := *v
		return &c
	}
	return nil
}

// lineForWatch is the line a watch's subscriptions go through: the
// contact's own account when it is enabled, else the selected one.
func (p *Phone) lineForWatch(w Watched) *line {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.serving {
		return nil
	}
	if l, ok := p.lines[w.AccountID]; ok && l.acc.Enabled {
		return l
	}
	if l, ok := p.lines[p.selected]; ok && l.acc.Enabled {
		return l
	}
	for _, id := range p.order {
		if l := p.lines[id]; l.acc.Enabled {
			return l
		}
	}
	return nil
}

type wantedSub struct {
	key, event, accept string
	l                  *line
	target             sip.Uri
	notify             func(string, []byte)
}

// reconcile starts the subscriptions and publications that are wanted and
// not running, and stops those no longer wanted (or on a replaced line).
func (o *office) reconcile() {
	p := o.p
	o.rmu.Lock()
	defer o.rmu.Unlock()
	o.mu.Lock()
	if o.stopped {
		o.mu.Unlock()
		return
	}
	watched := append([]Watched(nil), o.watched...)
	o.mu.Unlock()

	want := map[string]wantedSub{}
	wantPub := map[string]*line{}
	lineOf := map[string]*line{}
	for _, w := range watched {
		l := p.lineForWatch(w)
		if l == nil || !o.isUp(l) {
			continue
		}
		target, err := parseTarget(w.Number, l.acc)
		if err != nil {
			continue
		}
		target.Headers, target.UriParams = nil, nil
		id := w.ContactID
		lineOf[id] = l
		want["dialog|"+id] = wantedSub{key: "dialog|" + id, event: "dialog", accept: "application/dialog-info+xml",
			l: l, target: target, notify: func(ct string, b []byte) { o.dialogNotify(id, ct, b) }}
		if l.acc.Presence {
			want["presence|"+id] = wantedSub{key: "presence|" + id, event: "presence", accept: "application/pidf+xml",
				l: l, target: target, notify: func(ct string, b []byte) { o.presenceNotify(id, ct, b) }}
		}
	}
	p.mu.Lock()
	for _, id := range p.order {
		l := p.lines[id]
		if l == nil || !l.acc.Enabled || !p.serving {
			continue
		}
		if l.acc.MWI && o.isUp(l) {
			acc := l.acc.ID
			want["mwi|"+acc] = wantedSub{key: "mwi|" + acc, event: "message-summary", accept: "application/simple-message-summary",
				l: l, target: aor(l.acc), notify: func(ct string, b []byte) { o.mwiNotify(acc, ct, b) }}
		}
		if l.acc.Presence && o.isUp(l) {
			wantPub[l.acc.ID] = l
		}
	}
	p.mu.Unlock()

	var stops []func()
	o.mu.Lock()
	for id, st := range o.state {
		if l := lineOf[id]; l != st.line {
			st.line = l
			st.dialogs, st.ring, st.state, st.presence = nil, nil, LineUnknown, PresenceUnknown
		}
	}
	for k, s := range o.subs {
		if w, ok := want[k]; !ok || w.l != s.l || w.target.String() != s.target.String() {
			delete(o.subs, k)
			p.log.Debug("subscription ends", "key", k)
			stops = append(stops, s.stop)
			if strings.HasPrefix(k, "mwi|") {
				delete(o.vm, strings.TrimPrefix(k, "mwi|"))
			}
		}
	}
	var starts []*subscription
	for k, w := range want {
		if _, ok := o.subs[k]; ok {
			continue
		}
		s := newSubscription(p, w.l, w.event, w.accept, w.target, w.notify)
		p.log.Debug("subscription starts", "key", k, "to", w.target.String())
		o.subs[k] = s
		starts = append(starts, s)
	}
	for acc, pub := range o.pubs {
		if l, ok := wantPub[acc]; !ok || l != pub.l {
			delete(o.pubs, acc)
			stops = append(stops, pub.stop)
		}
	}
	var pubStarts []*publication
	for acc, l := range wantPub {
		if _, ok := o.pubs[acc]; !ok {
			pub := newPublication(p, l)
			o.pubs[acc] = pub
			pubStarts = append(pubStarts, pub)
		}
	}
	o.mu.Unlock()
	for _, f := range stops {
		go f() // unsubscribing waits for an answer: not here
	}
	for _, s := range starts {
		s.start()
	}
	for _, pub := range pubStarts {
		pub.start(o.myPresence())
	}
	o.changed("", "")
}
