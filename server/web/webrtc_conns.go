package web

import (
	"crypto/rand"
	"sync"
)

// rtcConns names each tab's WebRTC connection: the id the offer's answer
// gave the page, which its close beacon sends back. The bridge keys
// connections by tab id alone, and a reloaded page keeps its tab id
// (sessionStorage); without the name, the old page's beacon arriving after
// the new page's offer closed the new page's audio during a call.
type rtcConns struct {
	mu  sync.Mutex // held across the bridge's Close, so no offer slips between check and close
	ids map[string]string
}

// begin names the connection an offer of tab is about to make. It is
// recorded before the bridge takes the offer: from then on a beacon of an
// older connection of the tab finds another name and closes nothing. prev
// is the name it replaced, for undo.
func (r *rtcConns) begin(tab string) (id, prev string) {
	id = rand.Text()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ids == nil {
		r.ids = map[string]string{}
	}
	prev = r.ids[tab]
	r.ids[tab] = id
	return id, prev
}

// undo: the bridge refused the offer and kept the tab's older connection,
// which its page may still close by its name.
func (r *rtcConns) undo(tab, id, prev string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ids[tab] != id {
		return // a later offer took over
	}
	if prev == "" {
		delete(r.ids, tab)
	} else {
		r.ids[tab] = prev
	}
}

// end closes tab's connection through closeTab when id names the tab's
// latest one; a beacon for an older (or no) connection closes nothing.
func (r *rtcConns) end(tab, id string, closeTab func(tab string)) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if id == "" || r.ids[tab] != id {
		return false
	}
	delete(r.ids, tab)
	closeTab(tab)
	return true
}

// attach runs attachPCM, which replaces the tab's WebRTC connection with
// the socket fallback (a reloaded page on a machine where WebRTC cannot
// connect), and forgets the WebRTC connection's name: the old page's late
// beacon must not close the new page's fallback either.
func (r *rtcConns) attach(tab string, attachPCM func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.ids, tab)
	attachPCM()
}
