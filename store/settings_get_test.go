package store

import (
	"path/filepath"
	"testing"
	"time"
)

// TestGetDoesNotWaitForAnUpdate: Get answers while an Update is under way
// (here its fn waits; on a slow or failing disk, its save's fsync, seconds
// to minutes). Get took the lock Update holds until settings.json is
// synced, so every page of the phone (each asks its language) and every
// reader of the settings waited for the disk during a save. Get gives the
// settings before, and the new ones once Update returned.
func TestGetDoesNotWaitForAnUpdate(t *testing.T) {
	st, err := NewSettingsStore(filepath.Join(t.TempDir(), "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	entered, release, updated := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		_, err := st.Update(func(s *Settings) error {
			close(entered)
			<-release
			s.Hotkeys.Answer = "Alt+Q"
			return nil
		})
		updated <- err
	}()
	<-entered
	got := make(chan Settings, 1)
	go func() { got <- st.Get() }()
	select {
	case s := <-got:
		if s.Hotkeys.Answer != "Alt+A" {
			t.Errorf("during the update: %q, want the settings before", s.Hotkeys.Answer)
		}
	case <-time.After(5 * time.Second):
		t.Error("Get waited for the update")
	}
	close(release)
	if err := <-updated; err != nil {
		t.Fatal(err)
	}
	if s := st.Get(); s.Hotkeys.Answer != "Alt+Q" {
		t.Errorf("after the update: %q", s.Hotkeys.Answer)
	}
}
