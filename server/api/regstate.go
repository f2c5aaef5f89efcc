package api

import (
	"sync"

	"github.com/softphone/softphone/sipua"
)

// regTracker keeps the latest registration state of each account, from the
// bus, for GET /accounts when no AccountStates func is wired.
type regTracker struct {
	mu sync.Mutex
	m  map[string]sipua.Registration
}

func newRegTracker() *regTracker { return &regTracker{m: make(map[string]sipua.Registration)} }

func (r *regTracker) set(reg sipua.Registration) {
	r.mu.Lock()
	r.m[reg.AccountID] = reg
	r.mu.Unlock()
}

func (r *regTracker) get(id string) (state, cause string, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	reg, ok := r.m[id]
	return reg.State, reg.Cause, ok
}
