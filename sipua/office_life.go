package sipua

import (
	"context"
	"sync"
)

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
	o.rmu.Lock()
	defer o.rmu.Unlock()
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
