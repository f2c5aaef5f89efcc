package sipua

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/softphone/softphone/audio"
	"github.com/softphone/softphone/store"
)

// retryRaceDB is the real store; the first "Try again" of one recording
// (its transcript made pending) is held, once saved, until the hold is let
// go.
type retryRaceDB struct {
	*store.DB
	id    string
	once  sync.Once
	saved chan struct{} // closed when that save is in SQLite
	hold  chan struct{} // the save returns once this is closed
	done  chan string
}

func (d *retryRaceDB) RetryTranscript(ctx context.Context, id, recogniser string) (bool, error) {
	retried, err := d.DB.RetryTranscript(ctx, id, recogniser)
	if err == nil && retried && id == d.id {
		d.once.Do(func() {
			close(d.saved)
			<-d.hold
		})
	}
	return retried, err
}

func (d *retryRaceDB) SaveTranscript(ctx context.Context, t store.Transcript) error {
	err := d.DB.SaveTranscript(ctx, t)
	if err == nil && t.Status == "done" {
		d.done <- t.RecordingID
	}
	return err
}

// TestTryAgainDuringScanRunsOnce: "Try again" pressed while the runner
// scans the waiting transcripts: the scan finds the transcript pending
// before Retry has queued it, runs it, and then the queue brought it again.
// It was made twice (two runs of the recogniser on the same recording,
// minutes of both cores for a long call); the runner's claim of a
// transcript (pending to running in one statement) runs it once.
func TestTryAgainDuringScanRunsOnce(t *testing.T) {
	home := t.TempDir()
	db, err := store.OpenDB(filepath.Join(home, "softphone.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	bg := context.Background()
	ids := recordingsFor(t, db, home, 2) // the retried one, and one queued behind it
	if err := db.SaveTranscript(bg, store.Transcript{RecordingID: ids[0], Status: "failed", Error: "the recogniser was down", Recogniser: "http"}); err != nil {
		t.Fatal(err)
	}
	settings := store.DefaultSettings()
	settings.Transcription.Recogniser = "http"
	var runs atomic.Int32 // of the retried one
	ddb := &retryRaceDB{DB: db, id: ids[0], saved: make(chan struct{}), hold: make(chan struct{}), done: make(chan string, 4)}
	tr := NewTranscripts(TranscriptsConfig{DB: ddb, Home: home, Settings: func() store.Settings { return settings },
		New: func(_, _, _, _ string) (audio.Transcriber, error) {
			return fnTranscriber(func(_ context.Context, path string) ([]audio.Segment, error) {
				return []audio.Segment{{StartS: 0, EndS: 0.1, Text: "hello"}}, nil
			}), nil
		}})
	ctx, stop := context.WithCancel(bg)
	served := make(chan error, 1)
	go func() { served <- tr.Serve(ctx) }()
	defer func() { stop(); <-served }()

	retried := make(chan error, 1)
	go func() { retried <- tr.Retry(bg, ids[0]) }()
	<-ddb.saved // pending in SQLite, not queued yet
	tr.Wake()   // a scan now (a full queue, a recogniser set)
	select {
	case id := <-ddb.done:
		if id != ids[0] {
			t.Fatalf("scan made %s", id)
		}
		runs.Add(1)
	case <-time.After(10 * time.Second):
		t.Fatal("the scan did not make the pending transcript")
	}
	close(ddb.hold) // Retry queues it now
	if err := <-retried; err != nil {
		t.Fatal(err)
	}
	// The second recording is queued behind it: once it is made, the
	// queue has brought the retried one too.
	if err := tr.Enqueue(ids[1]); err != nil {
		t.Fatal(err)
	}
	for {
		select {
		case id := <-ddb.done:
			if id == ids[0] {
				runs.Add(1)
				continue
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the queued transcript was not made")
		}
		break
	}
	if n := runs.Load(); n != 1 {
		t.Fatalf("the retried transcript was made %d times, want once", n)
	}
	got, err := db.GetTranscript(bg, ids[0])
	if err != nil || got.Status != "done" {
		t.Fatalf("retried transcript: %+v %v", got, err)
	}
}

// unsavedDB is the real store whose transcript saves fail (a full disk
// refuses the run's end, the failed row too), as the claim's small write
// got through.
type unsavedDB struct{ *store.DB }

func (unsavedDB) SaveTranscript(context.Context, store.Transcript) error {
	return errors.New("database or disk is full")
}

// TestScanRunsEachTranscriptOnce: a transcript whose end cannot be saved
// stays running, its time moved ahead of the scan's place by the claim; the
// scan reading the waiting transcripts a page at a time found it again and
// ran it again, for as long as the disk stayed full (a recogniser run after
// another). It is run once per scan.
func TestScanRunsEachTranscriptOnce(t *testing.T) {
	home := t.TempDir()
	db, err := store.OpenDB(filepath.Join(home, "softphone.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	bg := context.Background()
	ids := recordingsFor(t, db, home, 1)
	if err := db.SaveTranscript(bg, store.Transcript{RecordingID: ids[0], Status: "pending", Recogniser: "http"}); err != nil {
		t.Fatal(err)
	}
	settings := store.DefaultSettings()
	settings.Transcription.Recogniser = "http"
	ctx, stop := context.WithCancel(bg)
	defer stop()
	var runs atomic.Int32
	tr := NewTranscripts(TranscriptsConfig{DB: unsavedDB{db}, Home: home, Settings: func() store.Settings { return settings },
		New: func(_, _, _, _ string) (audio.Transcriber, error) {
			return fnTranscriber(func(context.Context, string) ([]audio.Segment, error) {
				if runs.Add(1) == 3 {
					stop() // ends a scan that would not
				}
				return []audio.Segment{{StartS: 0, EndS: 0.1, Text: "hello"}}, nil
			}), nil
		}})
	tr.resume(ctx)
	if n := runs.Load(); n != 1 {
		t.Fatalf("one scan ran the transcript %d times, want once", n)
	}
}

// TestTryAgainTwiceRunsOnce: two presses of "Try again" on a failed
// transcript both read it failed (ui_retry.go); the second Retry came
// while the first's run was under way, or after it was done. It set the
// running transcript back to pending (the page showed it waiting while it
// ran), and after the run, replaced the done transcript with a run of its
// own. A transcript that is not failed is now left as it is.
func TestTryAgainTwiceRunsOnce(t *testing.T) {
	home := t.TempDir()
	db, err := store.OpenDB(filepath.Join(home, "softphone.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	bg := context.Background()
	ids := recordingsFor(t, db, home, 2)
	if err := db.SaveTranscript(bg, store.Transcript{RecordingID: ids[0], Status: "failed", Error: "the recogniser was down", Recogniser: "http"}); err != nil {
		t.Fatal(err)
	}
	settings := store.DefaultSettings()
	settings.Transcription.Recogniser = "http"
	started, release := make(chan struct{}, 8), make(chan struct{})
	var runs atomic.Int32 // of the recogniser, both recordings
	tr := NewTranscripts(TranscriptsConfig{DB: db, Home: home, Settings: func() store.Settings { return settings },
		New: func(_, _, _, _ string) (audio.Transcriber, error) {
			return fnTranscriber(func(context.Context, string) ([]audio.Segment, error) {
				runs.Add(1)
				started <- struct{}{}
				<-release
				return []audio.Segment{{StartS: 0, EndS: 0.1, Text: "hello"}}, nil
			}), nil
		}})
	ctx, stop := context.WithCancel(bg)
	served := make(chan error, 1)
	go func() { served <- tr.Serve(ctx) }()
	defer func() { stop(); <-served }()
	var releaseOnce sync.Once
	let := func() { releaseOnce.Do(func() { close(release) }) }
	defer let() // before Serve is waited for, on a failure too

	if err := tr.Retry(bg, ids[0]); err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the retried transcript did not start")
	}
	if err := tr.Retry(bg, ids[0]); err != nil { // the second press, while it runs
		t.Fatal(err)
	}
	if got, err := db.GetTranscript(bg, ids[0]); err != nil || got.Status != "running" {
		t.Fatalf("after a second Try again during the run: %q %v, want running", got.Status, err)
	}
	let()
	waitTranscript(t, db, ids[0], "done")
	if err := tr.Retry(bg, ids[0]); err != nil { // a late press, after it was made
		t.Fatal(err)
	}
	// The second recording queued behind anything the presses queued: once
	// it is made, they would have run too.
	if err := tr.Enqueue(ids[1]); err != nil {
		t.Fatal(err)
	}
	waitTranscript(t, db, ids[1], "done")
	got, err := db.GetTranscript(bg, ids[0])
	if err != nil || got.Status != "done" || len(got.Segments) != 1 {
		t.Fatalf("retried transcript: %+v %v", got, err)
	}
	if n := runs.Load(); n != 2 {
		t.Fatalf("%d recogniser runs, want one for each recording", n)
	}
}

// waitTranscript waits (the runner tells no one) until the transcript of
// id has the status want.
func waitTranscript(t *testing.T, db *store.DB, id, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err := db.GetTranscript(context.Background(), id)
		if err == nil && got.Status == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("transcript of %s: %q %v, want %s", id, got.Status, err, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
