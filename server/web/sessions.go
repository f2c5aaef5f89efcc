package web

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"sync"
	"time"
)

// sessions holds the one-time keys of printed links and the sessions they
// opened. Both live only in memory: a restart prints a new link.
type sessions struct {
	mu   sync.Mutex
	keys map[string]time.Time // one-time key -> issued
	byID map[string]*session
}

type session struct {
	csrf string
	used time.Time // last request or stream end
	live int       // open event streams and audio sockets: a page in use
}

// sessionIdleTTL: a session with no open stream and no request for this
// long is gone (its page shows the gate; a new link opens it again). A
// page that is open keeps its event stream, so it is never idle.
const sessionIdleTTL = 7 * 24 * time.Hour

// maxIdleSessions bounds the sessions without an open stream: the most
// recently used are kept. Each opened link made a session kept for the
// program's life, and a local program's loop of POST /calls opens a tab
// each time no tab holds the audio, so memory grew with every page opened.
// Sessions with an open stream are bounded by the port's connections.
const maxIdleSessions = 64

// keyTTL bounds how long a printed link stays usable if nobody opens it.
const keyTTL = 24 * time.Hour

// maxKeys bounds the links not yet opened: the newest are kept. Every
// POST /calls of the local API while no tab holds the audio asks for a
// link to open, and where no browser can be opened (no desktop) it asks
// again at once: each key was kept for a day, so any local program's loop
// of POST /calls grew the phone's memory without end.
const maxKeys = 64

func newSessions() *sessions {
	return &sessions{keys: map[string]time.Time{}, byID: map[string]*session{}}
}

func randomToken() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic("crypto/rand failed: " + err.Error()) // never on Linux >= 3.17
	}
	return hex.EncodeToString(b)
}

func (s *sessions) newKey() string {
	k := randomToken()
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.keys) >= maxKeys {
		oldest, at := "", now
		for key, issued := range s.keys {
			if now.Sub(issued) > keyTTL {
				delete(s.keys, key)
			} else if !issued.After(at) {
				oldest, at = key, issued
			}
		}
		if len(s.keys) >= maxKeys {
			delete(s.keys, oldest)
		}
	}
	s.keys[k] = now
	return k
}

// redeem uses a one-time key: it is gone afterwards, whatever the outcome.
// It returns the new session's id, or "" when the key is unknown or stale.
func (s *sessions) redeem(key string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	issued, ok := s.keys[key]
	if !ok {
		return ""
	}
	delete(s.keys, key)
	if time.Since(issued) > keyTTL {
		return ""
	}
	s.sweep(time.Now())
	id := randomToken()
	s.byID[id] = &session{csrf: randomToken(), used: time.Now()}
	return id
}

// sweep drops the idle sessions past sessionIdleTTL and, beyond
// maxIdleSessions-1 (room for the one about to be added), the least
// recently used idle ones. Called with s.mu held.
func (s *sessions) sweep(now time.Time) {
	idle := 0
	for id, se := range s.byID {
		switch {
		case se.live > 0:
		case now.Sub(se.used) > sessionIdleTTL:
			delete(s.byID, id)
		default:
			idle++
		}
	}
	for ; idle >= maxIdleSessions; idle-- {
		oldest, at := "", now
		for id, se := range s.byID {
			if se.live == 0 && !se.used.After(at) {
				oldest, at = id, se.used
			}
		}
		delete(s.byID, oldest)
	}
}

// hold marks the session in use while a stream of its page is open (the
// event stream, the audio socket); release ends that.
func (s *sessions) hold(id string) (release func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	se, ok := s.byID[id]
	if !ok {
		return func() {}
	}
	se.live++
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		se.live--
		se.used = time.Now()
	}
}

// get returns the session's CSRF token, or false when there is no such session.
func (s *sessions) get(id string) (string, bool) {
	if id == "" {
		return "", false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	se, ok := s.byID[id]
	if !ok {
		return "", false
	}
	now := time.Now()
	if se.live == 0 && now.Sub(se.used) > sessionIdleTTL {
		delete(s.byID, id)
		return "", false
	}
	se.used = now
	return se.csrf, true
}

// checkCSRF compares a presented token with the session's in constant time.
func (s *sessions) checkCSRF(id, token string) bool {
	want, ok := s.get(id)
	return ok && token != "" && subtle.ConstantTimeCompare([]byte(want), []byte(token)) == 1
}
