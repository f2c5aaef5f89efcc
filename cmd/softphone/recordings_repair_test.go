package main

import (
	"context"
	le "encoding/binary"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/softphone/softphone/audio"
	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/store"
)

// runsDB is the store counting the transcript runs of each recording (a
// run claims its transcript first: running).
type runsDB struct {
	*store.DB
	mu   sync.Mutex
	runs map[string]int
}

func (d *runsDB) ClaimTranscript(ctx context.Context, recordingID, recogniser string) (bool, error) {
	ok, err := d.DB.ClaimTranscript(ctx, recordingID, recogniser)
	if ok {
		d.mu.Lock()
		d.runs[recordingID]++
		d.mu.Unlock()
	}
	return ok, err
}

func (d *runsDB) runsOf(id string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.runs[id]
}

// TestRepairedRecordingTranscribedOnce: at a start, a recording whose row
// a crash left without its size (its row's update at the end failed) and
// whose transcript was running when the phone was killed (or pending at a
// stop) is completed from its WAV file and transcribed once, by the
// runner's resume; one already transcribed is not transcribed again; one
// without a transcript gets one. Before, the repair queued all three, so
// the first was transcribed twice and the second again (real SQLite, real
// WAV files cut short).
func TestRepairedRecordingTranscribedOnce(t *testing.T) {
	home := t.TempDir()
	bg := context.Background()
	sdb, err := store.OpenDB(filepath.Join(home, "softphone.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	db := &runsDB{DB: sdb, runs: map[string]int{}}
	if err := os.MkdirAll(filepath.Join(home, "recordings"), 0o700); err != nil {
		t.Fatal(err)
	}
	pcm := make([]int16, 2*16000)
	for i := range pcm {
		pcm[i] = int16((i%40 - 20) * 800)
	}
	cutShort := func(name string) store.Recording {
		path := filepath.Join(home, "recordings", name+".wav")
		if err := testpeer.WriteWAV(path, 16000, 2, pcm); err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		var zero [4]byte // the header's lengths as a kill leaves them
		le.LittleEndian.PutUint32(zero[:], 0)
		f.WriteAt(zero[:], 4)
		f.WriteAt(zero[:], 40)
		f.Close()
		r, err := db.CreateRecording(bg, store.Recording{CallID: "call-" + name, Path: "recordings/" + name + ".wav", StartedAt: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	running, done, none := cutShort("running"), cutShort("done"), cutShort("none")
	if err := db.SaveTranscript(bg, store.Transcript{RecordingID: running.ID, Recogniser: "http", Status: "running"}); err != nil {
		t.Fatal(err)
	}
	if err := db.SaveTranscript(bg, store.Transcript{RecordingID: done.ID, Recogniser: "http", Status: "done",
		Segments: []store.TranscriptSegment{{Speaker: "remote", EndS: 1, Text: "kept"}}}); err != nil {
		t.Fatal(err)
	}
	db.runs = map[string]int{}
	// The last one, queued after the repair: once it is transcribed, every
	// run queued before it has been made.
	last := cutShort("last")
	if err := sdb.UpdateRecording(bg, store.Recording{ID: last.ID, CallID: last.CallID, Path: last.Path, SizeBytes: 44 + 4*16000, DurationS: 1, StartedAt: last.StartedAt}); err != nil {
		t.Fatal(err)
	}

	settings := store.DefaultSettings()
	settings.Transcription.Recogniser, settings.Transcription.URL = "http", "http://127.0.0.1:1"
	tr := sipua.NewTranscripts(sipua.TranscriptsConfig{DB: db, Home: home, Settings: func() store.Settings { return settings },
		New: func(_, _, _, _ string) (audio.Transcriber, error) {
			return transcriberFunc(func(context.Context, string) ([]audio.Segment, error) {
				return []audio.Segment{{EndS: 1, Text: "heard"}}, nil
			}), nil
		}})
	repairRecordings(bg, sdb, home, tr, slog.New(slog.DiscardHandler))
	if err := tr.Enqueue(last.ID); err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(bg)
	served := make(chan error, 1)
	go func() { served <- tr.Serve(ctx) }()
	if !testpeer.WaitFor(10*time.Second, func() bool {
		got, err := sdb.GetTranscript(bg, last.ID)
		return err == nil && got.Status == "done"
	}) {
		t.Fatal("the last recording was not transcribed")
	}
	stop()
	<-served
	for _, c := range []struct {
		what string
		id   string
		want int
	}{{"left running by the kill", running.ID, 1}, {"done before", done.ID, 0}, {"without a transcript", none.ID, 1}} {
		if n := db.runsOf(c.id); n != c.want {
			t.Errorf("the recording %s was transcribed %d times, want %d", c.what, n, c.want)
		}
		got, err := sdb.GetTranscript(bg, c.id)
		if err != nil || got.Status != "done" || len(got.Segments) == 0 {
			t.Errorf("the recording %s: transcript %+v, %v", c.what, got, err)
		}
		r, err := sdb.GetRecording(bg, c.id)
		if err != nil || r.SizeBytes != 44+int64(2*len(pcm)) || r.DurationS != 1 {
			t.Errorf("the recording %s after the repair: %+v, %v", c.what, r, err)
		}
	}
}

// transcriberFunc is a recogniser made of a function.
type transcriberFunc func(ctx context.Context, path string) ([]audio.Segment, error)

func (f transcriberFunc) Transcribe(ctx context.Context, path string) ([]audio.Segment, error) {
	return f(ctx, path)
}
