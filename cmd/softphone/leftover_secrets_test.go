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

// TestKilledTranscriptLeavesNoCopies: the copies of a recording's channels
// a transcript cut short by a kill left beside the recordings (each as long
// as the call) are removed at the next start; the recordings stay.
func TestKilledTranscriptLeavesNoCopies(t *testing.T) {
	home := t.TempDir()
	writeSettings(t, home, map[string]any{})
	left := filepath.Join(home, "recordings", ".transcript-1234567")
	if err := os.MkdirAll(left, 0o700); err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(home, "recordings", "a.wav")
	for _, f := range []string{filepath.Join(left, "remote.wav"), rec} {
		if err := os.WriteFile(f, []byte("RIFF"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p := startPhone(t, home, noKeyring)
	p.stop(t)
	if _, err := os.Stat(left); err == nil {
		t.Error("the copies of a transcript cut short are still beside the recordings after a start")
	}
	if _, err := os.Stat(rec); err != nil {
		t.Errorf("the recording: %v", err)
	}
}
