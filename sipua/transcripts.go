package sipua

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/softphone/softphone/audio"
	"github.com/softphone/softphone/store"
)

// TranscriptDB is what the transcript runner needs of store.DB.
type TranscriptDB interface {
	GetRecording(ctx context.Context, id string) (store.Recording, error)
	WaitingTranscripts(ctx context.Context, after store.WaitingTranscript, limit int) ([]store.WaitingTranscript, error)
	ClaimTranscript(ctx context.Context, recordingID, recogniser string) (bool, error)
	RetryTranscript(ctx context.Context, recordingID, recogniser string) (bool, error)
	GetTranscript(ctx context.Context, recordingID string) (store.Transcript, error)
	SaveTranscript(ctx context.Context, t store.Transcript) error
	ListTaxonomy(ctx context.Context) ([]store.TaxonomyEntry, error)
	HistoryByCall(ctx context.Context, callID string) (store.HistoryEntry, error)
	SetHistoryTags(ctx context.Context, id string, codes []string) error
}

// TranscriptsConfig is what NewTranscripts needs.
type TranscriptsConfig struct {
	DB       TranscriptDB
	Secrets  SecretGetter
	Home     string                // recordings are under Home (store.Recording.Path is relative)
	Settings func() store.Settings // the settings now: the recogniser may change at any time
	Logger   *slog.Logger
	// New makes the recogniser; default audio.NewTranscriber.
	New func(recogniser, url, model, key string) (audio.Transcriber, error)
}

// Transcripts transcribes recordings in the background, one at a time
// (recognisers are CPU-heavy), records progress and failures, and flags the
// call when a transcript holds a red flag's trigger phrase (issue 6).
type Transcripts struct {
	cfg  TranscriptsConfig
	log  *slog.Logger
	jobs chan string
	// wake tells Serve that transcripts wait in SQLite (pending) beyond
	// what jobs holds: the queue was full, or a recogniser was set.
	wake chan struct{}

	mu     sync.Mutex
	queued map[string]bool // in jobs: not queued twice, not run again by a scan
}

// ErrTranscriptQueueFull is returned when too many recordings wait.
var ErrTranscriptQueueFull = errors.New("too many recordings wait for a transcript; retry later")

// ErrNoTranscriber: a transcript was asked for while no recogniser is set.
var ErrNoTranscriber = errors.New("no recogniser is set (transcription.recogniser is none)")

// NewTranscripts returns a runner; Serve runs it.
func NewTranscripts(cfg TranscriptsConfig) *Transcripts {
	if cfg.New == nil {
		cfg.New = audio.NewTranscriber
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Transcripts{cfg: cfg, log: cfg.Logger, jobs: make(chan string, 256),
		wake: make(chan struct{}, 1), queued: map[string]bool{}}
}

// Enqueue asks for a transcript of a recording without waiting for it. It
// is what audio's OnRecording calls when a recording ends; it does nothing
// when no recogniser is configured. The transcript is saved pending first:
// the queue is in memory, and a phone killed (kill -9, a power cut) with
// recordings in it forgot them (the next start resumes only what SQLite
// holds), and their pages said "No transcript." while they waited.
func (t *Transcripts) Enqueue(recordingID string) error {
	if !t.recogniserSet() {
		return nil
	}
	ctx := context.Background()
	tr := store.Transcript{RecordingID: recordingID, Recogniser: t.cfg.Settings().Transcription.Recogniser, Status: "pending", UpdatedAt: time.Now()}
	if err := t.cfg.DB.SaveTranscript(ctx, tr); err != nil {
		// Queued all the same: it is made unless the phone is killed first.
		t.log.Warn("queued transcript not kept in SQLite", "recording", recordingID, "err", err)
	}
	return t.queue(ctx, recordingID)
}

func (t *Transcripts) recogniserSet() bool {
	r := t.cfg.Settings().Transcription.Recogniser
	return r != "" && r != "none"
}

// queue puts a recording in the queue; when the queue is full, its
// transcript is kept pending in SQLite and run when there is room (a scan
// of the pending ones once the queue is worked off). Dropped with a log
// line, as before, a burst of recordings (a day's calls repaired after a
// crash, a recogniser that was down) lost its transcripts for good.
func (t *Transcripts) queue(ctx context.Context, id string) error {
	t.mu.Lock()
	if t.queued[id] {
		t.mu.Unlock()
		return nil
	}
	select {
	case t.jobs <- id:
		t.queued[id] = true
		t.mu.Unlock()
		return nil
	default:
	}
	t.mu.Unlock()
	if tr, err := t.cfg.DB.GetTranscript(ctx, id); err != nil || tr.Status != "pending" {
		tr := store.Transcript{RecordingID: id, Recogniser: t.cfg.Settings().Transcription.Recogniser, Status: "pending", UpdatedAt: time.Now()}
		if err := t.cfg.DB.SaveTranscript(ctx, tr); err != nil {
			return errors.Join(ErrTranscriptQueueFull, err)
		}
	}
	t.Wake()
	return nil
}

// Wake has Serve look for transcripts left pending in SQLite and run
// them: cmd calls it when a recogniser is set (those pending while there
// was none waited for the next start).
func (t *Transcripts) Wake() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// Retry transcribes a recording again after its transcript failed, with
// the recogniser set now. Its transcript is pending from now on: the page
// that asked shows it waiting, and it is run when the queue has room. A
// transcript that is not failed is left as it is: two presses of "Try
// again" read it failed, and the second came when the first's run was
// under way (or done); it set that run's transcript back to pending and
// queued it again.
func (t *Transcripts) Retry(ctx context.Context, recordingID string) error {
	if _, err := t.cfg.DB.GetRecording(ctx, recordingID); err != nil {
		return err
	}
	if !t.recogniserSet() {
		return ErrNoTranscriber
	}
	retried, err := t.cfg.DB.RetryTranscript(ctx, recordingID, t.cfg.Settings().Transcription.Recogniser)
	if err != nil || !retried {
		return err
	}
	return t.queue(ctx, recordingID)
}

// take notes that Serve took id from the queue.
func (t *Transcripts) take(id string) {
	t.mu.Lock()
	delete(t.queued, id)
	t.mu.Unlock()
}

func (t *Transcripts) isQueued(id string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.queued[id]
}

// Serve transcribes queued recordings until ctx ends, first those a stop
// or a crash left pending or running.
func (t *Transcripts) Serve(ctx context.Context) error {
	t.resume(ctx)
	for {
		select {
		case <-ctx.Done():
			t.keepQueued(context.WithoutCancel(ctx))
			return nil
		case id := <-t.jobs:
			t.take(id)
			if ctx.Err() != nil { // select took the job, not the stop
				t.keepQueued(context.WithoutCancel(ctx), id)
				return nil
			}
			if !t.recogniserSet() {
				// Set to none while these waited: they wait, pending, for
				// a recogniser (Wake), as those of a phone started without
				// one do. Each was marked failed, to be asked for again
				// one by one with Try again.
				t.keepQueued(ctx, id)
				continue
			}
			if err := t.transcribe(ctx, id); err != nil {
				t.log.Warn("transcript failed", "recording", id, "err", err)
			}
		case <-t.wake:
			t.resume(ctx)
		}
	}
}

// keepQueued saves the recordings still waiting when the phone stops as
// pending, for resume at the next start. A done transcript (a retry was
// asked for) is kept as it is rather than replaced by an empty one.
func (t *Transcripts) keepQueued(ctx context.Context, taken ...string) {
	keep := func(id string) {
		if tr, err := t.cfg.DB.GetTranscript(ctx, id); err == nil && tr.Status == "done" {
			return
		}
		tr := store.Transcript{RecordingID: id, Recogniser: t.cfg.Settings().Transcription.Recogniser, Status: "pending"}
		if err := t.cfg.DB.SaveTranscript(ctx, tr); err != nil {
			t.log.Warn("queued transcript lost at the stop", "recording", id, "err", err)
		}
	}
	for _, id := range taken {
		keep(id)
	}
	for {
		select {
		case id := <-t.jobs:
			t.take(id)
			keep(id)
		default:
			return
		}
	}
}

// resumePage is how many waiting transcripts resume reads at a time.
const resumePage = 100

// resume transcribes the recordings whose transcript was pending (the phone
// stopped during its run, the queue was full, no recogniser was set) or
// running (the phone was killed): the queue is kept in SQLite and resumes
// at the next start (README), and when Wake is called. Those in the queue
// are left to it. It reads only the waiting transcripts, oldest first, a
// page at a time (store.WaitingTranscripts); it read the 10,000 newest
// recordings and asked for each one's transcript (a third of a second and
// 60 MB of garbage per scan, each start and each Wake), and a transcript
// waiting beyond them was never run.
func (t *Transcripts) resume(ctx context.Context) {
	if !t.recogniserSet() {
		return
	}
	var after store.WaitingTranscript
	// A run moves its transcript's time ahead of the scan's place; one
	// left waiting again (its end not saved: a full disk) is not run again
	// by this scan, which would go on for as long as that lasts.
	tried := map[string]bool{}
	for {
		page, err := t.cfg.DB.WaitingTranscripts(ctx, after, resumePage)
		if err != nil {
			t.log.Warn("pending transcripts not resumed", "err", err)
			return
		}
		if len(page) == 0 {
			return
		}
		after = page[len(page)-1]
		for _, w := range page {
			if t.isQueued(w.RecordingID) || tried[w.RecordingID] {
				continue
			}
			tried[w.RecordingID] = true
			if ctx.Err() != nil || !t.recogniserSet() {
				return
			}
			if err := t.transcribe(ctx, w.RecordingID); err != nil {
				t.log.Warn("transcript failed", "recording", w.RecordingID, "err", err)
			}
		}
	}
}

func (t *Transcripts) transcribe(ctx context.Context, id string) error {
	rec, err := t.cfg.DB.GetRecording(ctx, id)
	if err != nil {
		return err
	}
	tc := t.cfg.Settings().Transcription
	tr := store.Transcript{RecordingID: id, Recogniser: tc.Recogniser, Status: "running", UpdatedAt: time.Now()}
	// The claim (pending or cut short to running, in one statement) runs
	// a transcript once: "Try again" saves it pending and then queues it,
	// and a scan between the two found it pending, not queued, and ran
	// it; the queue then brought it again. Done or failed meanwhile, it
	// is left as it is.
	claimed, err := t.cfg.DB.ClaimTranscript(ctx, id, tc.Recogniser)
	if err != nil || !claimed {
		return err
	}
	fail := func(err error) error {
		tr.Status, tr.Error, tr.UpdatedAt = "failed", err.Error(), time.Now()
		if ctx.Err() != nil {
			// The phone is stopping: not a failure of this recording; it
			// stays queued for the next start (resume).
			tr.Status, tr.Error = "pending", ""
		}
		if serr := t.cfg.DB.SaveTranscript(context.WithoutCancel(ctx), tr); serr != nil {
			return errors.Join(err, serr)
		}
		return err
	}
	key := ""
	if t.cfg.Secrets != nil {
		key, _ = t.cfg.Secrets.Get("recogniser:" + tc.Recogniser) // a local recogniser needs none
	}
	rz, err := t.cfg.New(tc.Recogniser, tc.URL, tc.Model, key)
	if err != nil {
		return fail(err)
	}
	segs, err := audio.TranscribeRecording(ctx, rz, filepath.Join(t.cfg.Home, rec.Path))
	if err != nil {
		return fail(fmt.Errorf("transcribe %s: %w", rec.Path, err))
	}
	tr.Segments = make([]store.TranscriptSegment, len(segs))
	for i, s := range segs {
		tr.Segments[i] = store.TranscriptSegment{Speaker: s.Speaker, StartS: s.StartS, EndS: s.EndS, Text: s.Text}
	}
	tr.Status, tr.Error, tr.UpdatedAt = "done", "", time.Now()
	if err := t.cfg.DB.SaveTranscript(ctx, tr); err != nil {
		// Not left running (the page said "being made" until the next
		// start): failed, with why, so that it can be run again. The
		// failed row holds no lines: it may fit where they did not.
		tr.Segments = nil
		return fail(fmt.Errorf("the transcript could not be saved: %w", err))
	}
	return t.flag(ctx, rec.CallID, segs)
}

// flag tags the call's history entry with every red flag whose trigger
// phrase the transcript holds (retired entries are not given to new calls).
func (t *Transcripts) flag(ctx context.Context, callID string, segs []audio.Segment) error {
	tax, err := t.cfg.DB.ListTaxonomy(ctx)
	if err != nil {
		return err
	}
	var triggers []audio.Trigger
	for _, e := range tax {
		if e.Kind == "red_flag" && !e.Retired && len(e.Triggers) > 0 {
			triggers = append(triggers, audio.Trigger{Code: e.Code, Phrases: e.Triggers})
		}
	}
	codes := audio.MatchTriggers(segs, triggers)
	if len(codes) == 0 || callID == "" {
		return nil
	}
	h, err := t.cfg.DB.HistoryByCall(ctx, callID)
	if err != nil {
		return fmt.Errorf("flag call %s: %w", callID, err)
	}
	have := map[string]bool{}
	for _, c := range h.Tags {
		have[c] = true
	}
	tags := h.Tags
	for _, c := range codes {
		if !have[c] {
			tags = append(tags, c)
		}
	}
	t.log.Info("transcript flags the call", "call", callID, "codes", strings.Join(codes, ","))
	return t.cfg.DB.SetHistoryTags(ctx, h.ID, tags)
}
