package webhook

import "errors"

// When the outbox cannot be written (a full disk), a reader keeps its batch
// in memory and tries again after a wait that doubles from 1 s to 30 s,
// instead of dropping the events or trying once per event; the failure is
// logged at most once a minute (issue 14). The batch is bounded by the
// outbox's capacity: events beyond it are dropped and counted, as they
// would be by a full outbox. Its events are in the journal when the journal
// could be written, so a crash meanwhile loses only the others.

// failed keeps the batch and arms the retry.
func (r *reader) failed(err error) {
	d := r.retry.fail()
	r.rlog.fail(r.s.log, "webhook events not written to the outbox; kept in memory and tried again", err,
		"waiting", len(r.batch), "retry_in", d.String())
	if r.armed {
		r.timer.Stop()
	}
	r.timer.Reset(d)
	r.armed = true
}

// recovered ends the waiting after a write that worked.
func (r *reader) recovered() {
	if r.retry.failing() {
		r.retry.reset()
		r.rlog.ok(r.s.log, "webhook events written to the outbox again")
	}
}

// bound drops what exceeds the capacity while the batch waits: the newest,
// just read and not yet journaled.
func (r *reader) bound() {
	for len(r.batch) > r.s.cfg.Capacity {
		ev := r.batch[len(r.batch)-1]
		r.batch = r.batch[:len(r.batch)-1]
		r.s.dropped(errors.Join(ErrQueueFull, errors.New("waiting for the disk")), ev)
	}
}
