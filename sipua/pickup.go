package sipua

import (
	"context"
	"fmt"
	"time"

	"github.com/emiago/sipgo/sip"
)

// Pickup takes the call ringing at a watched colleague. With the account's
// pickup_prefix set, the prefix is dialled before the colleague's number
// (the PBX's directed pickup, e.g. *8); otherwise an INVITE to the
// colleague carries Replaces built from the ringing dialog the dialog event
// package reported (RFC 3891 3; the PBX or the caller honours it). The new
// call is an ordinary outgoing call (history, webhooks, seance id).
func (p *Phone) Pickup(ctx context.Context, contactID string) (Call, error) {
	// The NOTIFY naming the ringing dialog's tags may come a moment after
	// the one that showed the ringing (Trying, then early): wait for it.
	wctx, cancel := context.WithTimeout(ctx, pickupWait)
	defer cancel()
	for {
		c, err, again := p.pickup(ctx, contactID)
		if !again {
			return c, err
		}
		p.office.mu.Lock()
		moved := p.office.moved
		p.office.mu.Unlock()
		select {
		case <-moved:
		case <-wctx.Done():
			return c, err
		}
	}
}

// pickupWait is how long a pickup waits for the ringing dialog's tags.
const pickupWait = 2 * time.Second

// pickup tries once; again says that the dialog's tags are still missing.
func (p *Phone) pickup(ctx context.Context, contactID string) (c Call, err error, again bool) {
	o := p.office
	o.mu.Lock()
	st, ok := o.state[contactID]
	var (
		w     Watched
		l     *line
		state string
		ring  *ringingDialog
	)
	if ok {
		w, l, state = st.w, st.line, st.state
		if st.ring != nil {
			r := *st.ring
			ring = &r
		}
	}
	o.mu.Unlock()
	if !ok || l == nil || state != LineRinging {
		// Why, for the log at debug: a pickup refused right after the page
		// showed ringing (note 14) could not be told from the outside.
		p.log.Debug("pickup refused: the line is not ringing", "contact", contactID, "watched", ok, "subscribed", l != nil, "state", state)
		return Call{}, fmt.Errorf("pickup: %w", ErrNotRinging), false
	}
	if l.acc.PickupPrefix != "" {
		c, err = p.dial(ctx, dialOpts{number: l.acc.PickupPrefix + w.Number, accountID: l.acc.ID})
		return c, err, false
	}
	if ring == nil || ring.CallID == "" || ring.LocalTag == "" || ring.RemoteTag == "" {
		// The PBX reports ringing without the dialog's identifiers: nothing
		// to put in Replaces (a pickup_prefix would do).
		p.log.Debug("pickup waits: the ringing dialog has no tags yet", "contact", contactID)
		return Call{}, fmt.Errorf("pickup: %w (the PBX did not name the ringing call)", ErrNotRinging), true
	}
	c, err = p.dial(ctx, dialOpts{number: w.Number, accountID: l.acc.ID,
		headers: []sip.Header{sip.NewHeader("Replaces", ring.replaces())}})
	return c, err, false
}

// CallVoicemail dials the account's voicemail_number (the selected account
// when accountID is empty).
func (p *Phone) CallVoicemail(ctx context.Context, accountID string) (Call, error) {
	l, err := p.lineFor(accountID)
	if err != nil {
		return Call{}, fmt.Errorf("voicemail: %w", err)
	}
	if l.acc.VoicemailNumber == "" {
		return Call{}, fmt.Errorf("voicemail: %w", ErrNoVoicemail)
	}
	return p.dial(ctx, dialOpts{number: l.acc.VoicemailNumber, accountID: l.acc.ID})
}
