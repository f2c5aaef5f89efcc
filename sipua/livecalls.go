package sipua

import (
	"sync"
	"time"

	"github.com/emiago/sipgo/sip"
)

// Calls at once are bounded (maxLiveCalls): a new incoming call beyond
// them gets 486 Busy Here (RFC 3261 21.4.24) before anything is made for
// it. Ringing calls alone were bounded (maxRingingIn), and an answered call
// gives its ringing place back, so with sip.auto_answer a flood of INVITEs
// (a PBX's routing loop, a caller's script, anyone with
// sip.accept_calls_from anyone) had every one answered, each with its RTP
// ports, goroutines and, with recording on, a file. A call replacing
// another (Replaces) is let in: it ends the one it replaces. The check
// comes before a ringing place is taken, so calls ringing in at that
// moment can take the count at most maxRingingIn past the bound.

// busyLogEvery is how often the log says calls are being turned away
// while they are (a flood would otherwise fill the log).
const busyLogEvery = time.Minute

// busyLog counts the calls turned away and says so in the log at most
// once per busyLogEvery.
type busyLog struct {
	mu      sync.Mutex
	last    time.Time
	pending int // turned away since the last line
}

// roomForCall says whether a new incoming call may be taken; when not,
// the person learns it from the log.
func (p *Phone) roomForCall(req *sip.Request) bool {
	p.mu.Lock()
	n := len(p.calls)
	p.mu.Unlock()
	if n < maxLiveCalls {
		return true
	}
	b := &p.busy
	b.mu.Lock()
	b.pending++
	now := time.Now()
	if now.Sub(b.last) < busyLogEvery {
		b.mu.Unlock()
		return false
	}
	count := b.pending
	b.last, b.pending = now, 0
	b.mu.Unlock()
	p.log.Warn("incoming calls turned away (486 Busy Here): the phone has as many calls at once as it takes",
		"calls", n, "limit", maxLiveCalls, "turned_away", count, "source", req.Source())
	return false
}
