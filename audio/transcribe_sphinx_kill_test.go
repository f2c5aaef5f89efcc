//go:build linux

package audio

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/softphone/softphone/internal/testpeer"
)

// sphinxHelperEnv makes the test binary the phone of
// TestKilledPhoneStopsRecogniser: it runs a recogniser and waits.
const sphinxHelperEnv = "SOFTPHONE_TEST_SPHINX_PIDFILE"

// TestKilledPhoneStopsRecogniser: a phone killed with SIGKILL while
// pocketsphinx transcribes a channel takes the recogniser with it. It ran
// on (minutes of both cores for an hour's call, beside the same transcript
// run again by the next start). Here the phone is this test binary run
// again, the recogniser a script that notes its process id and waits.
func TestKilledPhoneStopsRecogniser(t *testing.T) {
	if pidFile := os.Getenv(sphinxHelperEnv); pidFile != "" {
		dir := t.TempDir()
		bin := filepath.Join(dir, "pocketsphinx_continuous")
		script := "#!/bin/sh\necho $$ > " + pidFile + ".tmp && mv " + pidFile + ".tmp " + pidFile + "\nexec sleep 120\n"
		if err := os.WriteFile(bin, []byte(script), 0o700); err != nil {
			t.Fatal(err)
		}
		mono := filepath.Join(dir, "remote.wav")
		w, err := createWAV(mono, pcmRate, 1)
		if err != nil {
			t.Fatal(err)
		}
		w.close()
		_, err = Pocketsphinx{Bin: bin}.run(context.Background(), bin, mono)
		t.Fatalf("the recogniser ended: %v", err)
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	phone := exec.Command(os.Args[0], "-test.run", "^TestKilledPhoneStopsRecogniser$", "-test.count=1")
	phone.Env = append(os.Environ(), sphinxHelperEnv+"="+pidFile)
	if err := phone.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	if !testpeer.WaitFor(10*time.Second, func() bool {
		b, err := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && pid > 0
	}) {
		phone.Process.Kill()
		phone.Wait()
		t.Fatal("the recogniser did not start")
	}
	_ = phone.Process.Kill() // SIGKILL
	_ = phone.Wait()
	gone := func() bool { // no such process, or a zombie waiting for its reaper
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return true
		}
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		return len(f) > 0 && (f[0] == "Z" || f[0] == "X")
	}
	if !testpeer.WaitFor(5*time.Second, gone) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("the recogniser (process %d) runs on after the phone was killed", pid)
	}
}
