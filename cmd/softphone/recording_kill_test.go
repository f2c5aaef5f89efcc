package main

import (
	"database/sql"
	le "encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/softphone/softphone/internal/testpeer"
)

// TestKillDuringRecordingKeepsIt: the phone is killed (SIGKILL) while it
// records an answered call. At the next start the recording's file says
// how much audio it holds (its WAV header's lengths) and its row has the
// file's size and duration. Before, both stayed at zero: the list showed
// 0 s and players played nothing of the seconds on disk.
func TestKillDuringRecordingKeepsIt(t *testing.T) {
	home := t.TempDir()
	r := newCrashRig(t, home)
	b, _ := os.ReadFile(filepath.Join(home, "settings.json"))
	var st map[string]any
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	st["recording"] = map[string]any{"mode": "all"}
	writeSettings(t, home, st)

	p := r.start(t)
	r.sipp(t, 1)
	id := r.waitCalls(t, p, 1, "ringing-in")[0]
	r.action(t, id, "answer")
	r.waitCalls(t, p, 1, "connected")
	var wav string
	if !testpeer.WaitFor(10*time.Second, func() bool { // the recorder has flushed a second of audio
		m, _ := filepath.Glob(filepath.Join(home, "recordings", "*.wav"))
		if len(m) != 1 {
			return false
		}
		wav = m[0]
		fi, err := os.Stat(wav)
		return err == nil && fi.Size() > 44+64000
	}) {
		t.Fatalf("no recording grew:\n%s", p.Output())
	}
	_ = p.cmd.Process.Kill()
	<-p.done
	cut, err := os.Stat(wav)
	if err != nil {
		t.Fatal(err)
	}

	p = r.start(t)
	h := make([]byte, 44)
	f, err := os.Open(wav)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.ReadAt(h, 0)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	data := int64(le.LittleEndian.Uint32(h[40:]))
	want := (cut.Size() - 44) / 4 * 4 // 16-bit stereo frames
	if data != want || int64(le.LittleEndian.Uint32(h[4:])) != 36+want {
		t.Errorf("header after the restart: data %d, RIFF %d; the file holds %d bytes of audio",
			data, le.LittleEndian.Uint32(h[4:]), want)
	}
	p.stop(t)
	db, err := sql.Open("sqlite", filepath.Join(home, "softphone.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var size int64
	var dur float64
	if err := db.QueryRow(`SELECT size_bytes, duration_s FROM recordings`).Scan(&size, &dur); err != nil {
		t.Fatal(err)
	}
	if size != 44+want || dur < 1 || dur != float64(want)/64000 {
		t.Errorf("row after the restart: %d bytes, %.3f s; want %d bytes, %.3f s", size, dur, 44+want, float64(want)/64000)
	}
}
