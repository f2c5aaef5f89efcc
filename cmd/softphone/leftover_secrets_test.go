package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestKilledSecretSaveLeavesNoCopy: a save of secrets.json cut short by a
// kill leaves its temporary file, a full copy of the secrets of that
// moment; the next start removes it, so a secret deleted since does not
// live on in the home folder.
func TestKilledSecretSaveLeavesNoCopy(t *testing.T) {
	home := t.TempDir()
	writeSettings(t, home, map[string]any{})
	left := filepath.Join(home, ".secrets.json.tmp-1234567")
	if err := os.WriteFile(left, []byte(`{"api-token": "deleted-since-then"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startPhone(t, home, noKeyring)
	p.stop(t)
	if _, err := os.Stat(left); err == nil {
		t.Error("the leftover copy of the secrets is still in the home folder after a start")
	}
}
