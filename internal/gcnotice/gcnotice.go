// Package gcnotice tells when the garbage collector has run a cycle.
//
// Why (issue 20: idle RSS): each collection reads the stack maps of every
// goroutine's frames in the executable's pclntab, and the kernel maps the
// file around every page first touched (fault-around, 64 kB). An idle
// phone's forced collection every 2 minutes mapped about 3 MB of its
// executable back after the phone had unmapped them (internal/exepages).
// Told of the cycle, an idle phone can unmap them again.
//
// The notice costs one small allocation and one cleanup per cycle: a
// sentinel object is allocated with a cleanup (runtime.AddCleanup) and
// dropped; the collection that finds it unreachable runs the cleanup,
// which sends the notice and arms a new sentinel for the next cycle.
package gcnotice

import (
	"runtime"
	"sync/atomic"
)

// Notifier sends on C after garbage collection cycles.
type Notifier struct {
	c       chan struct{}
	stopped atomic.Bool
}

// sentinel is 16 bytes: smaller pointer-free objects go to the tiny
// allocator, where they share a block with others and may stay reachable
// through them (runtime.AddCleanup's documentation).
type sentinel [2]uint64

// Start begins the notices. The first comes after the first cycle that
// ends after Start.
func Start() *Notifier {
	n := &Notifier{c: make(chan struct{}, 1)}
	arm(n)
	return n
}

// C receives after a cycle; a notice not yet taken stands for any number
// of cycles (the channel holds one). C is closed after the first cycle
// that ends after Stop.
func (n *Notifier) C() <-chan struct{} { return n.c }

// Stop ends the notices: no sentinel is armed after the next cycle.
func (n *Notifier) Stop() { n.stopped.Store(true) }

func arm(n *Notifier) {
	runtime.AddCleanup(new(sentinel), cycled, n)
}

// cycled runs on the runtime's cleanup goroutine after the cycle that
// freed the sentinel: it must not block.
func cycled(n *Notifier) {
	if n.stopped.Load() {
		close(n.c)
		return
	}
	// The next sentinel is armed before the notice goes out: armed after
	// it, a cycle started by whoever took the notice could be marking
	// already, and a sentinel allocated then survives that cycle (it is
	// allocated marked), so that cycle would go untold.
	arm(n)
	select {
	case n.c <- struct{}{}:
	default: // one is waiting already
	}
}
