package views

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/softphone/softphone/store"
)

// TestStoreMsgGerman: the settings store's own refusals read German on a
// German page, English ones stay English.
func TestStoreMsgGerman(t *testing.T) {
	st, err := store.NewSettingsStore(filepath.Join(t.TempDir(), "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, err = st.Update(func(s *store.Settings) error {
		s.API.Port = s.UI.Port
		s.Audio.MicVolume = 300
		s.SIP.MediaTimeoutS = 2
		return nil
	})
	var msgs []string
	var walk func(error)
	walk = func(e error) {
		var fe *store.FieldError
		if errors.As(e, &fe) && e == error(fe) {
			msgs = append(msgs, fe.Msg)
			return
		}
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range j.Unwrap() {
				walk(x)
			}
		} else if u := errors.Unwrap(e); u != nil {
			walk(u)
		}
	}
	walk(err)
	if len(msgs) < 3 {
		t.Fatalf("store errors %v", err)
	}
	for _, m := range msgs {
		de := StoreMsg("de", m)
		if de == m {
			t.Errorf("no German for %q", m)
		}
		if StoreMsg("en", m) != m {
			t.Errorf("English changed: %q", m)
		}
		t.Logf("%q -> %q", m, de)
	}
	if got := StoreMsg("de", "must be 1-65535, got 70000"); got != "muss zwischen 1 und 65535 liegen, nicht 70000" {
		t.Fatal(got)
	}
	if got := StoreMsg("de", "hold: not possible in the call's state"); got != "hold: im Zustand des Gesprächs nicht möglich" {
		t.Fatal(got)
	}
}
