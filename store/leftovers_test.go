package store

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestSaveSettingsHelper is the process TestSettingsSaveKilledMidway kills:
// it saves the settings file over and over, with a growing port.
func TestSaveSettingsHelper(t *testing.T) {
	path := os.Getenv("STORE_SAVE_HELPER")
	if path == "" {
		t.Skip("run by TestSettingsSaveKilledMidway")
	}
	s := DefaultSettings()
	for i := 0; ; i++ {
		s.API.Port = 10000 + i%50000
		if err := SaveSettings(path, s); err != nil {
			fmt.Println("save:", err)
			os.Exit(1)
		}
		if i == 0 {
			fmt.Println("saving")
		}
	}
}

// TestSettingsSaveKilledMidway kills a process with -9 while it saves the
// settings in a loop, many times: every time the file is whole (one of the
// saves), and the next start removes the temporary file of the save it cut
// short.
func TestSettingsSaveKilledMidway(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	if err := SaveSettings(path, DefaultSettings()); err != nil {
		t.Fatal(err)
	}
	left := 0
	for round := range 20 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSaveSettingsHelper$")
		cmd.Env = append(os.Environ(), "STORE_SAVE_HELPER="+path)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 7)
		if _, err := out.Read(buf); err != nil || string(buf) != "saving\n"[:7] {
			t.Fatalf("helper: %q %v", buf, err)
		}
		time.Sleep(time.Duration(round%7) * time.Millisecond) // kill at different points of a save
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		temps, _ := filepath.Glob(filepath.Join(dir, ".settings.json.tmp-*"))
		left += len(temps)
		st, err := NewSettingsStore(path)
		if err != nil {
			t.Fatalf("round %d: settings after kill -9: %v", round, err)
		}
		if p := st.Get().API.Port; p < 8377 || p > 60000 {
			t.Fatalf("round %d: port %d", round, p)
		}
		st.Close()
		if temps, _ := filepath.Glob(filepath.Join(dir, ".settings.json.tmp-*")); len(temps) != 0 {
			t.Fatalf("round %d: leftovers after start: %v", round, temps)
		}
	}
	t.Logf("temporary files left by 20 kills, all removed at the next start: %d", left)
}

// TestFailedSaveLeavesNoTemp: a save that fails (the rename target is a
// folder) removes its temporary file and leaves the folder as it was.
func TestFailedSaveLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := SaveSettings(path, DefaultSettings()); err == nil {
		t.Fatal("save onto a folder succeeded")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		names := []string{}
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Fatalf("folder holds %v after a failed save", names)
	}
}
