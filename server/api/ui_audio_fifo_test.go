package api

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestAudioFIFORefused: a FIFO (or another non-file) in a recording's place
// is answered at once with 404 "the audio of that recording is missing".
// Opening it waited for a writer for ever: the player's request hung, and a
// goroutine and a connection with it, one more at every reload.
func TestAudioFIFORefused(t *testing.T) {
	e := newEnv(t)
	id := e.seed().recording.ID
	p := filepath.Join(e.home, "recordings", id+".wav")
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip(err)
	}
	done := make(chan resp, 1)
	go func() { done <- do(t, "GET", e.base+"/ui/recordings/"+id+"/audio", "") }()
	select {
	case r := <-done:
		if r.status != 404 || r.errMsg(t) != msgNoAudio {
			t.Fatalf("audio of a FIFO: %d %s", r.status, r.body)
		}
	case <-time.After(5 * time.Second):
		// Let the stuck open end so that the test can end.
		if f, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		<-done
		t.Fatal("the audio request waits on the FIFO")
	}
}
