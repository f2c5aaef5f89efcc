package api

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// roRecordings names, in the child process of
// TestRecordingKeptWhileItsAudioStays, that it runs in the private mount
// namespace.
const roRecordings = "SOFTPHONE_TEST_RO_RECORDINGS"

// TestRecordingKeptWhileItsAudioStays: DELETE /ui/recordings/{id} while
// the audio file cannot be removed (the recordings folder read-only) keeps
// the recording and says why; the same request once it can removes both.
// The row was deleted first: the refusal answered 500 "internal error" and
// left the conversation's audio on the disk for good, which no later
// request could name (404). The folder is made read-only by a bind mount in
// a private mount namespace: the test runs itself again there, under
// unshare -m.
func TestRecordingKeptWhileItsAudioStays(t *testing.T) {
	if os.Getenv(roRecordings) == "" {
		if os.Geteuid() != 0 {
			t.Skip("needs root for unshare -m and mount")
		}
		if _, err := exec.LookPath("unshare"); err != nil {
			t.Skip("no unshare")
		}
		cmd := exec.Command("unshare", "-m", "--propagation", "private", os.Args[0],
			"-test.run", "^TestRecordingKeptWhileItsAudioStays$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), roRecordings+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestRecordingKeptWhileItsAudioStays") {
			t.Fatalf("in the mount namespace: %v\n%s", err, out)
		}
		t.Logf("in the mount namespace:\n%s", out)
		return
	}
	e := newEnv(t)
	id := e.seed().recording.ID
	e.setToken()
	dir := filepath.Join(e.home, "recordings")
	audio := filepath.Join(dir, id+".wav")
	if _, err := os.Stat(audio); err != nil {
		t.Fatal(err)
	}
	mount := func(args ...string) {
		if out, err := exec.Command("mount", args...).CombinedOutput(); err != nil {
			t.Fatalf("mount %v: %v %s", args, err, out)
		}
	}
	mount("--bind", dir, dir)
	mount("-o", "remount,ro,bind", dir)
	r := do(t, "DELETE", e.base+"/ui/recordings/"+id, "", bearer(token))
	if r.status != 500 || r.errMsg(t) != msgAudioKept {
		t.Fatalf("audio not removable: %d %s", r.status, r.body)
	}
	if r := e.get("/ui/recordings/" + id); r.status != 200 {
		t.Fatalf("recording not kept: %d", r.status)
	}
	if _, err := os.Stat(audio); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
		t.Fatalf("umount: %v %s", err, out)
	}
	if r := do(t, "DELETE", e.base+"/ui/recordings/"+id, "", bearer(token)); r.status != 204 {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	if _, err := os.Stat(audio); !os.IsNotExist(err) {
		t.Fatalf("audio file kept: %v", err)
	}
	if r := e.get("/ui/recordings/" + id); r.status != 404 {
		t.Fatalf("after delete: %d", r.status)
	}
}
