package testpeer

import (
	"embed"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

//go:embed testdata/*.xml
var scenarios embed.FS

// SIPpDir makes a folder holding the harness scenarios and a 30 s 440 Hz
// u-law file (audio.ulaw) for rtp_stream, and returns it.
func SIPpDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	ents, _ := scenarios.ReadDir("testdata")
	for _, e := range ents {
		b, _ := scenarios.ReadFile("testdata/" + e.Name())
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "audio.ulaw"), ulawTone(440, 30), 0o644); err != nil {
		t.Fatal(err)
	}
	_ = os.Symlink("/usr/share/sip-tester", filepath.Join(dir, "pcap"))
	return dir
}

// SIPp returns (not started) a sipp command running in dir with loopback
// addresses and a 30 s overall timeout.
func SIPp(t testing.TB, dir string, args ...string) *exec.Cmd {
	t.Helper()
	Require(t, "sipp")
	base := []string{"-i", "127.0.0.1", "-mi", "127.0.0.1", "-nostdin", "-timeout", "30s", "-timeout_error"}
	cmd := exec.Command("sipp", append(base, args...)...)
	cmd.Dir = dir
	return cmd
}
