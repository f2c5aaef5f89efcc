package sipua

import (
	"context"
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

// isUp: the line registered at least once (told by the bus, or seen in its
// state now).
func (o *office) isUp(l *line) bool {
	o.mu.Lock()
	up := o.up[l]
	o.mu.Unlock()
	return up || l.status().State == RegRegistered
}

// registered is told of each registration result of an account: the first
// success of a line starts its subscriptions; a success after a failure
// makes every subscription of that line again (the PBX may have lost them).
func (o *office) registered(r Registration) {
	l, ok := o.p.lineByID(r.AccountID)
	if !ok {
		return
	}
	o.mu.Lock()
	if r.Failed {
		o.failedAt[r.AccountID] = true
		o.mu.Unlock()
		return
	}
	if !r.OK {
		o.mu.Unlock()
		return
	}
	first := !o.up[l]
	again := o.failedAt[r.AccountID]
	o.up[l] = true
	delete(o.failedAt, r.AccountID)
	var renew []*subscription
	if again && !first {
		for _, s := range o.subs {
			if s.l == l {
				renew = append(renew, s)
			}
		}
	}
	o.mu.Unlock()
	for _, s := range renew {
		s.renew()
	}
	if first {
		o.reconcile()
	}
}

// stopAll ends every subscription and publication (shutdown, listener move).
func (o *office) stopAll() {
	o.mu.Lock()
	var stops []func()
	for k, s := range o.subs {
		stops = append(stops, s.stop)
		delete(o.subs, k)
	}
	for k, pub := range o.pubs {
		stops = append(stops, pub.stop)
		delete(o.pubs, k)
	}
	o.up = map[*line]bool{}
	for _, st := range o.state {
		st.line, st.dialogs, st.ring, st.state, st.presence = nil, nil, nil, LineUnknown, PresenceUnknown
	}
	o.vm = map[string]*Voicemail{}
	o.mu.Unlock()
	var wg sync.WaitGroup
	for _, f := range stops {
		wg.Add(1)
		go func() { defer wg.Done(); f() }()
	}
	wg.Wait()
}

// changed tells the pages (EventOffice on the bus).
func (o *office) changed(accountID, contactID string) {
	o.p.bus.Publish(Event{Kind: EventOffice, Office: OfficeChange{AccountID: accountID, ContactID: contactID}})
}

// dialogNotify takes a dialog-info body (nil: state unknown).
func (o *office) dialogNotify(contactID, ctype string, body []byte) {
	var d dialogInfo
	if body != nil {
		if ctype != "application/dialog-info+xml" {
			return
		}
		var err error
		if d, err = parseDialogInfo(body); err != nil {
			o.p.log.Info("dialog NOTIFY not understood", "contact", contactID, "error", err)
			return
		}
	}
	o.mu.Lock()
	st, ok := o.state[contactID]
	if !ok {
		o.mu.Unlock()
		return
	}
	before := st.state
	if body == nil {
		st.dialogs, st.ring, st.state = nil, nil, LineUnknown
	} else {
		if !strings.EqualFold(d.State, "partial") || st.dialogs == nil {
			st.dialogs = map[string]dialogElement{}
		}
		for i, dl := range d.Dialogs {
			id := dl.ID
			if id == "" {
				id = dl.CallID + "\x00" + dl.LocalTag + "\x00" + string(rune('a'+i%26))
			}
			if len(st.dialogs) < maxDialogs || st.dialogs[id].State != "" {
				st.dialogs[id] = dl
			}
		}
		all := dialogInfo{}
		for _, dl := range st.dialogs {
			all.Dialogs = append(all.Dialogs, dl)
			if dl.CallID != "" && dl.LocalTag != "" && dl.RemoteTag != "" {
				if st.tags == nil || len(st.tags) >= maxDialogs {
					st.tags = map[string][2]string{}
				}
				st.tags[dl.CallID] = [2]string{dl.LocalTag, dl.RemoteTag}
			}
		}
		st.state, st.ring = all.lineState()
		if r := st.ring; r != nil && r.LocalTag == "" {
			if tg, ok := st.tags[r.CallID]; ok {
				r.LocalTag, r.RemoteTag = tg[0], tg[1]
			}
		}
	}
	now := st.state
	close(o.moved)
	o.moved = make(chan struct{})
	o.mu.Unlock()
	if now != before {
		o.changed("", contactID)
	}
}

// presenceNotify takes a PIDF body (nil: unknown).
func (o *office) presenceNotify(contactID, ctype string, body []byte) {
	v := PresenceUnknown
	if body != nil {
		if ctype != "application/pidf+xml" {
			return
		}
		d, err := parsePIDF(body)
		if err != nil {
			o.p.log.Info("presence NOTIFY not understood", "contact", contactID, "error", err)
			return
		}
		v = d.value()
	}
	o.mu.Lock()
	st, ok := o.state[contactID]
	changed := ok && st.presence != v
	if ok {
		st.presence = v
	}
	o.mu.Unlock()
	if changed {
		o.changed("", contactID)
	}
}

// mwiNotify takes a message-summary body (nil: unknown).
func (o *office) mwiNotify(accountID, ctype string, body []byte) {
	var vm *Voicemail
	if body != nil {
		if ctype != "application/simple-message-summary" {
			return
		}
		v, ok := parseMessageSummary(body)
		if !ok {
			return
		}
		vm = &v
	}
	o.mu.Lock()
	old := o.vm[accountID]
	o.vm[accountID] = vm
	o.mu.Unlock()
	if (old == nil) != (vm == nil) || (old != nil && *old != *vm) {
		o.changed(accountID, "")
	}
}

// subscribe is the office's view of the bus; Serve makes it before the
// lines start, so no registration is missed.
func (o *office) subscribe() *Subscription {
	return o.p.bus.SubscribeOnly(256, false, func(e Event) bool {
		return e.Kind == EventRegistration || e.Kind == EventCallStarted || e.Kind == EventCallEnded
	})
}

// run follows the bus: registrations start and renew subscriptions, calls
// change the published status.
func (o *office) run(ctx context.Context, sub *Subscription) {
	defer sub.Close()
	sub.Each(ctx, func(e Event) {
		switch e.Kind {
		case EventRegistration:
			o.registered(e.Registration)
		case EventCallStarted, EventCallEnded:
			o.republish()
		}
	})
}

// stop ends the office for good (the phone is stopping).
func (o *office) stop() {
	o.mu.Lock()
	o.stopped = true
	o.mu.Unlock()
	o.stopAll()
}
