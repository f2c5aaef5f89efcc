package sipua

// Reregister sends a new REGISTER for the account at once, with the
// credentials read afresh. The password lives in the keyring, not in the
// account settings, so a changed password changes nothing Apply compares:
// without this the line would say "registered" on the old binding until its
// refresh (80 % of up to an hour) and only then find the password wrong. A
// line that is not running (disabled, stopped) is left alone. It says
// whether the account has a running line.
func (p *Phone) Reregister(accountID string) bool {
	p.mu.Lock()
	l := p.lines[accountID]
	p.mu.Unlock()
	if l == nil {
		return false
	}
	l.mu.Lock()
	running := l.stop != nil
	l.mu.Unlock()
	if !running {
		return false
	}
	select {
	case l.kicks() <- struct{}{}:
	default: // one is already waiting: that REGISTER reads the new password too
	}
	return true
}

// kicks is the line's wake-up for the registration loop's wait (sleep in
// register.go), made on first use.
func (l *line) kicks() chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.kick == nil {
		l.kick = make(chan struct{}, 1)
	}
	return l.kick
}
