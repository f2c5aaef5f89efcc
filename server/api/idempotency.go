package api

import (
	"errors"
	"sync"
	"time"
)

// idempotencyWindow: a POST /calls repeated with the same Idempotency-Key
// within it places no second call.
const idempotencyWindow = 10 * time.Minute

// Bounds of what is remembered (rest-api.md leaves request size and rate
// limits open). Each key is kept for the window; without them a local
// program dialling with fresh 8 KiB keys (the largest header fasthttp
// takes) grew the map without bound. A longer key is refused 400 before
// anything is dialled (Stripe's keys, the usual bound, are at most 255; a
// UUID is 36). When maxIdempotencyKeys keys are within their window a
// dial with a new key is refused 429 until the oldest expires: dropping
// the oldest instead would let its repeat dial a second call, which the
// spec's "same key within 10 minutes: nothing dialled" forbids. 1024 keys
// in 10 minutes is more than any person's or CRM's clicks; bounded so,
// the map holds at most ~0.4 MB.
const (
	maxIdempotencyKeyLen = 255
	maxIdempotencyKeys   = 1024
)

// The refusals of a dial whose Idempotency-Key cannot be remembered.
const (
	msgKeyTooLong  = "an Idempotency-Key is at most 255 characters: nothing was dialled"
	msgTooManyKeys = "too many Idempotency-Keys in the last 10 minutes (1024): nothing was dialled; try again after Retry-After seconds"
)

// errTooManyKeys: maxIdempotencyKeys keys are within their window; retry
// is when the oldest leaves it.
type errTooManyKeys struct{ retry time.Duration }

func (e errTooManyKeys) Error() string { return "too many Idempotency-Keys" }

// idemWaitHook, set by tests only, is called as a request is about to wait
// for (or take) its key's turn.
var idemWaitHook func(key string)

var errKeyTooLong = errors.New("the Idempotency-Key is too long")

type idemEntry struct {
	once sync.Mutex // held while the first request dials
	// id, done and at are written holding both once and idempotency.mu.
	id   string
	done bool
	at   time.Time
	// users counts the requests holding this entry (under idempotency.mu):
	// a refused first keeps it in the map while a repeat waits for it.
	users int
}

// idempotency remembers the call id placed for each Idempotency-Key.
type idempotency struct {
	window time.Duration
	max    int // keys remembered at most (maxIdempotencyKeys)
	mu     sync.Mutex
	keys   map[string]*idemEntry
}

func newIdempotency(window time.Duration) *idempotency {
	return &idempotency{window: window, max: maxIdempotencyKeys, keys: make(map[string]*idemEntry)}
}

// do runs place once per key and window; a repeat (even a concurrent one)
// gets the first result. A failed attempt is forgotten so it can be retried.
// A key above maxIdempotencyKeyLen gives errKeyTooLong, a new key while
// m.max keys are remembered errTooManyKeys; neither places anything.
func (m *idempotency) do(key string, place func() (string, error)) (id string, replayed bool, err error) {
	if len(key) > maxIdempotencyKeyLen {
		return "", false, errKeyTooLong
	}
	now := time.Now()
	m.mu.Lock()
	var oldest time.Time
	for k, e := range m.keys {
		if e.done && now.Sub(e.at) > m.window {
			delete(m.keys, k)
		} else if e.done && (oldest.IsZero() || e.at.Before(oldest)) {
			oldest = e.at
		}
	}
	e, ok := m.keys[key]
	if !ok && len(m.keys) >= m.max {
		m.mu.Unlock()
		retry := time.Second // all in flight: one ends soon
		if !oldest.IsZero() {
			retry = max(oldest.Add(m.window).Sub(now), time.Second)
		}
		return "", false, errTooManyKeys{retry: retry}
	}
	if !ok {
		e = &idemEntry{}
		m.keys[key] = e
	}
	e.users++
	m.mu.Unlock()

	if idemWaitHook != nil {
		idemWaitHook(key)
	}
	e.once.Lock()
	defer e.once.Unlock()
	if e.done {
		m.mu.Lock()
		e.users--
		m.mu.Unlock()
		return e.id, true, nil
	}
	id, err = place()
	if err != nil {
		// Forgotten unless a repeat waits for it: that repeat dials next,
		// and what it places must stay remembered for its own repeats (a
		// removed entry sent the next repeat to dial a second call).
		m.mu.Lock()
		e.users--
		if e.users == 0 && m.keys[key] == e {
			delete(m.keys, key)
		}
		m.mu.Unlock()
		return "", false, err
	}
	// Written under both locks: the sweep above reads done and at under m.mu,
	// a repeat reads them under e.once.
	m.mu.Lock()
	e.users--
	e.id, e.done, e.at = id, true, time.Now()
	m.mu.Unlock()
	return id, false, nil
}
