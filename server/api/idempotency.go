package api

import (
	"sync"
	"time"
)

// idempotencyWindow: a POST /calls repeated with the same Idempotency-Key
// within it places no second call.
const idempotencyWindow = 10 * time.Minute

type idemEntry struct {
	once sync.Mutex // held while the first request dials
	// id, done and at are written holding both once and idempotency.mu.
	id   string
	done bool
	at   time.Time
}

// idempotency remembers the call id placed for each Idempotency-Key.
type idempotency struct {
	window time.Duration
	mu     sync.Mutex
	keys   map[string]*idemEntry
}

func newIdempotency(window time.Duration) *idempotency {
	return &idempotency{window: window, keys: make(map[string]*idemEntry)}
}

// do runs place once per key and window; a repeat (even a concurrent one)
// gets the first result. A failed attempt is forgotten so it can be retried.
func (m *idempotency) do(key string, place func() (string, error)) (id string, replayed bool, err error) {
	now := time.Now()
	m.mu.Lock()
	for k, e := range m.keys {
		if e.done && now.Sub(e.at) > m.window {
			delete(m.keys, k)
		}
	}
	e, ok := m.keys[key]
	if !ok {
		e = &idemEntry{}
		m.keys[key] = e
	}
	m.mu.Unlock()

	e.once.Lock()
	defer e.once.Unlock()
	if e.done {
		return e.id, true, nil
	}
	id, err = place()
	if err != nil {
		m.mu.Lock()
		if m.keys[key] == e {
			delete(m.keys, key)
		}
		m.mu.Unlock()
		return "", false, err
	}
	// Written under both locks: the sweep above reads done and at under m.mu,
	// a repeat reads them under e.once.
	m.mu.Lock()
	e.id, e.done, e.at = id, true, time.Now()
	m.mu.Unlock()
	return id, false, nil
}
