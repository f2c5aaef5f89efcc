package store

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func TestSettingsStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	st, err := NewSettingsStore(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got := make(chan Settings, 10)
	st.Watch(func(s Settings) { got <- s })

	s, err := st.Update(func(s *Settings) error {
		s.API.Enabled = true
		s.API.TokenSaved = true // display-only, never kept
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !s.API.Enabled || s.API.TokenSaved {
		t.Fatalf("Update returned %+v", s.API)
	}
	select {
	case w := <-got:
		if !w.API.Enabled {
			t.Fatalf("watcher got %+v", w.API)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("watcher not called")
	}
	if !st.Get().API.Enabled {
		t.Fatal("Get does not show the update")
	}
	if reloaded, err := LoadSettings(path); err != nil || !reloaded.API.Enabled {
		t.Fatalf("update not saved: %+v, %v", reloaded.API, err)
	}

	// A failing fn or an invalid result changes nothing and notifies no one.
	boom := errors.New("boom")
	if _, err := st.Update(func(s *Settings) error { s.API.Port = 1; return boom }); !errors.Is(err, boom) {
		t.Fatalf("Update = %v, want boom", err)
	}
	if _, err := st.Update(func(s *Settings) error { s.API.Port = 0; return nil }); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Update(invalid) = %v, want ErrInvalid", err)
	}
	if p := st.Get().API.Port; p != 8377 {
		t.Fatalf("port after refused updates = %d", p)
	}

	// Get hands out copies.
	c := st.Get()
	c.Audio.Codecs[0] = "changed"
	if st.Get().Audio.Codecs[0] == "changed" {
		t.Fatal("Get shares its slices")
	}
}

func TestSettingsStoreConcurrent(t *testing.T) {
	st, err := NewSettingsStore(filepath.Join(t.TempDir(), "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var mu sync.Mutex
	var last Settings
	calls := 0
	done := make(chan struct{}, 1)
	st.Watch(func(s Settings) {
		mu.Lock()
		last, calls = s, calls+1
		mu.Unlock()
		select {
		case done <- struct{}{}:
		default:
		}
	})
	const n = 20
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if _, err := st.Update(func(s *Settings) error {
				s.Audio.RingerVolume--
				s.Hotkeys.Answer = fmt.Sprint("Alt+", i)
				return nil
			}); err != nil {
				t.Error(err)
			}
			_ = st.Get()
		})
	}
	wg.Wait()
	want := DefaultSettings().Audio.RingerVolume - n
	if v := st.Get().Audio.RingerVolume; v != want {
		t.Fatalf("ringer volume = %d, want %d (no update lost)", v, want)
	}
	deadline := time.After(10 * time.Second)
	for {
		select {
		case <-done:
		case <-deadline:
			t.Fatal("watcher never saw the last update")
		}
		mu.Lock()
		ok := last.Audio.RingerVolume == want
		mu.Unlock()
		if ok {
			break
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if calls == 0 || calls > n {
		t.Fatalf("watcher called %d times for %d updates", calls, n)
	}
}
