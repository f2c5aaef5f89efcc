package sipua

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/softphone/softphone/audio"
	"github.com/softphone/softphone/store"
)

// TranscriptDB is what the transcript runner needs of store.DB.
type TranscriptDB interface {
	GetRecording(ctx context.Context, id string) (store.Recording, error)
	ListRecordings(ctx context.Context, limit int) ([]store.Recording, error)
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
}

// ErrTranscriptQueueFull is returned when too many recordings wait.
var ErrTranscriptQueueFull = errors.New("too many recordings wait for a transcript; retry later")

// NewTranscripts returns a runner; Serve runs it.
func NewTranscripts(cfg TranscriptsConfig) *Transcripts {
	if cfg.New == nil {
		cfg.New = audio.NewTranscriber
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Transcripts{cfg: cfg, log: cfg.Logger, jobs: make(chan string, 256)}
}

// Enqueue asks for a transcript of a recording without blocking. It is what
// audio's OnRecording calls when a recording ends; it does nothing when no
// recogniser is configured.
func (t *Transcripts) Enqueue(recordingID string) error {
	if r := t.cfg.Settings().Transcription.Recogniser; r == "" || r == "none" {
		return nil
	}
	select {
	case t.jobs <- recordingID:
		return nil
	default:
		return ErrTranscriptQueueFull
	}
}

// Retry transcribes a recording again (after a failure, or with another
// recogniser).
func (t *Transcripts) Retry(ctx context.Context, recordingID string) error {
	if _, err := t.cfg.DB.GetRecording(ctx, recordingID); err != nil {
		return err
	}
	select {
	case t.jobs <- recordingID:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	default:
		return ErrTranscriptQueueFull
	}
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
			if ctx.Err() != nil { // select took the job, not the stop
				t.keepQueued(context.WithoutCancel(ctx), id)
				return nil
			}
			if err := t.transcribe(ctx, id); err != nil {
				t.log.Warn("transcript failed", "recording", id, "err", err)
			}
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
			keep(id)
		default:
			return
		}
	}
}

// resumeScan is how many of the newest recordings resume looks at.
const resumeScan = 10000

// resume transcribes the recordings whose transcript was pending (the phone
// stopped during its run) or running (the phone was killed): the queue is
// kept in SQLite and resumes at the next start (README).
func (t *Transcripts) resume(ctx context.Context) {
	if r := t.cfg.Settings().Transcription.Recogniser; r == "" || r == "none" {
		return
	}
	recs, err := t.cfg.DB.ListRecordings(ctx, resumeScan)
	if err != nil {
		t.log.Warn("pending transcripts not resumed", "err", err)
		return
	}
	for _, r := range recs {
		tr, err := t.cfg.DB.GetTranscript(ctx, r.ID)
		if err != nil || (tr.Status != "pending" && tr.Status != "running") {
			continue
		}
		if ctx.Err() != nil {
			return
		}
		if err := t.transcribe(ctx, r.ID); err != nil {
			t.log.Warn("transcript failed", "recording", r.ID, "err", err)
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
	if err := t.cfg.DB.SaveTranscript(ctx, tr); err != nil {
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
		return err
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
