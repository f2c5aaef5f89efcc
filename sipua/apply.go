package sipua

import (
	"context"
	"sync"

	"github.com/softphone/softphone/store"
)

// Apply takes new settings at once: accounts added, changed, removed,
// enabled or disabled re-register or unregister; DND, auto-answer and the
// selected account apply to the next call. A changed sip.listen moves the
// listeners (when no call is up).
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
	moved := p.serving && (listenAddr(s.SIP.Listen) != listenAddr(p.listen) || tlsSettingsOf(s.SIP) != p.tlsNow)
	p.mu.Unlock()
	if moved {
		// The move re-registers every line; lines replaced or removed here
		// unregister on the way.
		var gone []*line
		for id, l := range old {
			if keep[id] != l {
				gone = append(gone, l)
			}
		}
		go p.relisten(s.SIP.Listen, gone)
		return
	}
	go func() { p.office.reconcile(); p.office.republish() }()
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

func listenAddr(s string) string {
	if s == "" {
		return "0.0.0.0:5060"
	}
	return s
}

// openStack starts the SIP stack on listen and builds every line on it,
// registering the enabled ones. stackMu is held.
func (p *Phone) openStack(ctx context.Context, listen string) error {
	listen = listenAddr(listen)
	st, err := startStack(ctx, listen, p.product, p.log, p.trace)
	if err != nil {
		return err
	}
	ts := tlsSettingsOf(p.settingsNow().SIP)
	if err := st.listenTLS(ctx, ts, p.home); err != nil {
		p.log.Warn("no SIP over TLS listener", "error", err) // UDP and TCP work on
	}
	p.handle(st)
	st.guard.trusted = p.isServerAddr
	st.serve()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stack, p.listen, p.serving, p.tlsNow = st, listen, true, ts
	if err := st.cas.set(caFiles(p.settings.Accounts)); err != nil {
		p.log.Warn("tls ca files", "error", err)
	}
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
	return nil
}

// closeStack ends every call, unregisters every line and closes the
// stack. stackMu is held.
func (p *Phone) closeStack(extra ...*line) {
	p.office.stopAll() // unsubscribe and unpublish while the lines are still up
	p.mu.Lock()
	p.serving = false
	st := p.stack
	calls := make([]*call, 0, len(p.calls))
	for _, c := range p.calls {
		calls = append(calls, c)
	}
	lines := append([]*line{}, extra...)
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
	if st != nil {
		p.closeStackAfterInvites(st)
	}
}

// relisten moves the SIP stack to a new sip.listen: lines unregister, the
// listeners move, lines register again with their new Contact. Calls in
// progress would lose their transport, so with calls up the move waits for
// the next Apply or start.
func (p *Phone) relisten(listen string, old []*line) {
	p.stackMu.Lock()
	defer p.stackMu.Unlock()
	p.mu.Lock()
	busy, serving := len(p.calls) > 0, p.serving
	p.mu.Unlock()
	if !serving {
		return
	}
	if busy {
		p.log.Warn("sip.listen changes when no call is up", "listen", listen)
		return
	}
	p.mu.Lock()
	prev := p.listen
	p.mu.Unlock()
	p.closeStack(old...)
	if err := p.openStack(context.Background(), listen); err != nil {
		p.log.Error("sip.listen: keeping the old address", "listen", listen, "error", err)
		if err := p.openStack(context.Background(), prev); err != nil {
			p.log.Error("sip.listen: the old address is gone too", "listen", prev, "error", err)
		}
	}
}
