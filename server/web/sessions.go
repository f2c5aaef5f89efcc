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
}

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
	id := randomToken()
	s.byID[id] = &session{csrf: randomToken()}
	return id
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
	return se.csrf, true
}

// checkCSRF compares a presented token with the session's in constant time.
func (s *sessions) checkCSRF(id, token string) bool {
	want, ok := s.get(id)
	return ok && token != "" && subtle.ConstantTimeCompare([]byte(want), []byte(token)) == 1
}
