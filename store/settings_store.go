package store

import (
	"path/filepath"
	"sync"
	"sync/atomic"
)

// SettingsStore is the one place settings change: it holds the current
// settings, saves each change atomically and then tells the watchers. It is
// safe for concurrent use.
type SettingsStore struct {
	path string

	mu       sync.Mutex // serialises Update; guards cur and watchers
	cur      Settings
	watchers []*watcher
	closed   bool

	// shown is cur for Get, set once saved. Get took mu, which Update holds
	// until settings.json is synced: on a slow or failing disk every page
	// (each asks its language) and every reader of the settings waited
	// for the disk during a save.
	shown atomic.Pointer[Settings]
}

// watcher runs one Watch callback in its own goroutine. It holds only the
// newest settings not yet delivered, so a slow callback never blocks Update
// and always ends up with the latest settings (rapid changes may coalesce).
type watcher struct {
	fn      func(Settings)
	mu      sync.Mutex
	pending *Settings
	wake    chan struct{}
}

// NewSettingsStore loads the settings at path (see LoadSettings).
func NewSettingsStore(path string) (*SettingsStore, error) {
	removeLeftovers(filepath.Dir(path), settingsLeftovers(path)) // of saves a kill cut short (leftovers.go)
	s, err := LoadSettings(path)
	if err != nil {
		return nil, err
	}
	st := &SettingsStore{path: path, cur: s}
	shown := s.Clone()
	st.shown.Store(&shown)
	return st, nil
}

// Path is the settings file.
func (s *SettingsStore) Path() string { return s.path }

// Get returns a copy of the current settings, without waiting for an
// Update under way (it gives the settings before until that returns).
func (s *SettingsStore) Get() Settings {
	return s.shown.Load().Clone()
}

// Update applies fn to a copy of the current settings, validates and saves
// the result, makes it current and then notifies the watchers. When fn, the
// validation or the save fails, nothing changes and the error is returned.
// The *_saved fields set by fn are not kept.
func (s *SettingsStore) Update(fn func(*Settings) error) (Settings, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := s.cur.Clone()
	if err := fn(&next); err != nil {
		return Settings{}, err
	}
	next.StripSaved()
	next.normalize()
	if err := SaveSettings(s.path, next); err != nil {
		return Settings{}, err
	}
	s.cur = next
	shown := next.Clone()
	s.shown.Store(&shown)
	for _, w := range s.watchers {
		w.post(next.Clone())
	}
	return next.Clone(), nil
}

// Watch calls fn, in a goroutine of its own, after each successful Update
// with the new settings. Calls to one fn never overlap; when updates come
// faster than fn returns, fn gets the newest settings.
func (s *SettingsStore) Watch(fn func(Settings)) {
	w := &watcher{fn: fn, wake: make(chan struct{}, 1)}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	go w.run()
	s.watchers = append(s.watchers, w)
}

// Close stops the watcher goroutines (a callback running finishes first).
// Later Updates still save but notify no one.
func (s *SettingsStore) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.closed = true
	for _, w := range s.watchers {
		close(w.wake)
	}
	s.watchers = nil
}

func (w *watcher) post(st Settings) {
	w.mu.Lock()
	w.pending = &st
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *watcher) run() {
	for range w.wake {
		w.mu.Lock()
		p := w.pending
		w.pending = nil
		w.mu.Unlock()
		if p != nil {
			w.fn(*p)
		}
	}
}
