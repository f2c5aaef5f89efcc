package api

import (
	"sync"
	"time"
)

// GET /history reads up to a thousand rows from SQLite for each request; an
// integration that polls it hard would keep the database busy. histCache keeps
// the rendered answer of each query for a short while:
//
//   - an answer is kept at most histCacheTTL, so changes made elsewhere (notes
//     and tags edited on the phone's own pages) show within that time;
//   - every call event on the bus and every write through this API drops all
//     answers at once;
//   - for histQuiet after a call event nothing is kept, because the phone
//     writes the history row of that event on its own subscription, possibly
//     a moment after we saw the event.
const (
	histCacheTTL = time.Second
	histQuiet    = 2 * time.Second
	histMaxKeys  = 64
)

type histCache struct {
	mu      sync.Mutex
	entries map[string]histCached
	quiet   time.Time // nothing is kept before this moment
}

type histCached struct {
	body []byte
	at   time.Time
}

func newHistCache() *histCache { return &histCache{entries: make(map[string]histCached)} }

func (h *histCache) get(key string) ([]byte, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	e, ok := h.entries[key]
	if !ok || time.Since(e.at) > histCacheTTL {
		return nil, false
	}
	return e.body, true
}

// put keeps body if no call event or write happened since started, the
// moment the database was asked.
func (h *histCache) put(key string, body []byte, started time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if started.Before(h.quiet) {
		return
	}
	if len(h.entries) >= histMaxKeys {
		clear(h.entries)
	}
	h.entries[key] = histCached{body: body, at: started}
}

// changed drops every kept answer and keeps none for the next histQuiet.
func (h *histCache) changed() {
	h.mu.Lock()
	clear(h.entries)
	h.quiet = time.Now().Add(histQuiet)
	h.mu.Unlock()
}
