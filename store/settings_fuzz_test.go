package store

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzLoadSettings feeds LoadSettings arbitrary files. It must never panic;
// a refused file must stay byte-identical; an accepted one must come back the
// same after a save and a reload. The saved corpus is in
// testdata/fuzz/FuzzLoadSettings.
func FuzzLoadSettings(f *testing.F) {
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"api": {"enabled": true, "port": 9000, "disabled": ["calls"]}}`))
	f.Add([]byte(`{"accounts": [{"username": "alice", "domain": "pbx", "enabled": true}]}`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "settings.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := LoadSettings(path)
		if err != nil {
			if after, _ := os.ReadFile(path); !bytes.Equal(after, data) {
				t.Fatalf("refused file changed: %v", err)
			}
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("accepted settings do not validate: %v", err)
		}
		if err := SaveSettings(path, s); err != nil {
			t.Fatalf("accepted settings cannot be saved: %v", err)
		}
		again, err := LoadSettings(path)
		if err != nil {
			t.Fatalf("saved settings do not load: %v", err)
		}
		if !reflect.DeepEqual(again, s) {
			t.Fatalf("round trip changed the settings\n got %+v\nwant %+v", again, s)
		}
	})
}
