package sipua

import "strings"

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
	o.p.log.Debug("dialog NOTIFY", "contact", contactID, "version", d.Version, "dialogs", len(d.Dialogs), "line", before+" -> "+now)
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
