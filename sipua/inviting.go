package sipua

import (
	"sync"
	"time"
)

// inviteGrace is how long a stop waits for outgoing INVITEs being
// cancelled before it closes the user agent anyway.
const inviteGrace = 3 * time.Second

// inviting counts the goroutines waiting for the answer to an outgoing
// INVITE (waitAnswer) and those sending its CANCEL (cancel.go). A stop hangs
// up the calls still dialling; their CANCELs and the 487s that follow (whose
// ACK the INVITE's transaction sends) need the user agent, so it is closed
// only once no goroutine is in there. (With sipgo's own CANCEL, a user agent
// closed under it crashed the phone at shutdown: CI run 16.)
type inviting struct {
	mu   sync.Mutex
	n    int
	idle chan struct{} // closed when n returns to 0
}

func (w *inviting) add() {
	w.mu.Lock()
	if w.n == 0 {
		w.idle = make(chan struct{})
	}
	w.n++
	w.mu.Unlock()
}

func (w *inviting) done() {
	w.mu.Lock()
	w.n--
	if w.n == 0 {
		close(w.idle)
	}
	w.mu.Unlock()
}

// quiet is closed once no goroutine waits for an answer.
func (w *inviting) quiet() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.n == 0 {
		c := make(chan struct{})
		close(c)
		return c
	}
	return w.idle
}

// closeStackAfterInvites closes st's listeners now and its user agent as
// soon as no answer is awaited: at once in the usual case, after the
// CANCELs of calls hung up while dialling are answered (up to inviteGrace)
// otherwise; later than that in the background, when a far end answers
// no CANCEL (sipgo's timers end those transactions by themselves).
func (p *Phone) closeStackAfterInvites(st *stack) {
	quiet := p.inviting.quiet()
	select {
	case <-quiet:
		st.close()
		return
	case <-time.After(inviteGrace):
	}
	st.closeListeners()
	go func() {
		<-quiet
		st.ua.Close()
	}()
}
