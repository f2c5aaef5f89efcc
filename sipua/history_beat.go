package sipua

// The history heartbeat runs only while it has work: a live call to stamp
// (so a kill -9 costs at most aliveEvery of its talk time), or entries
// written since its last turn to index for search. It used to tick every
// aliveEvery for the life of the process, an idle phone's wake-up every two
// seconds for nothing (issue 20). A live call is stamped every aliveEvery
// from its start, as before: an event never postpones a turn already armed,
// so calls that keep changing state cannot starve the stamp.

// wantBeat arms the heartbeat's next turn unless one is armed.
func (w *historyWriter) wantBeat() {
	if !w.beating {
		w.beat.Reset(aliveEvery)
		w.beating = true
	}
}

// beatFired is the heartbeat's turn: stamp and index (tick), then the next
// turn only while a call is live; the entries of events after this arm it
// again.
func (w *historyWriter) beatFired() {
	w.beating = false
	w.tick()
	if len(w.live) > 0 {
		w.wantBeat()
	}
}

// handled arms the heartbeat after events that write (their entries are
// indexed at its turn) or while a call is live.
func (w *historyWriter) handled() {
	if len(w.group) > 0 || len(w.live) > 0 {
		w.wantBeat()
	}
}
